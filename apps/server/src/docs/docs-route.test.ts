import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { contract } from '@plant-store/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/support/start-test-server.ts';
import { PAGE_CONTENT_SECURITY_POLICY } from '../http/page-security-headers.ts';
import { loadRendererScript } from './renderer-script.ts';

describe('GET /docs and its script over real HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.dispose());
  const scriptUrl = () =>
    `${server.url}${contract.getDocsScript.path}?v=${loadRendererScript().hash}`;

  it('answers the page as HTML without a credential, with a self-only CSP', async () => {
    const response = await fetch(`${server.url}${contract.getDocs.path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(PAGE_CONTENT_SECURITY_POLICY);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    expect(html).toContain('"operationId":"createPlant"');
  });

  it('allows no other origin in the CSP, and no inline script', () => {
    for (const directive of PAGE_CONTENT_SECURITY_POLICY.split('; ')) {
      expect(directive).not.toMatch(/https?:|\*|'unsafe-eval'/);
      if (directive.startsWith('script-src')) expect(directive).toBe("script-src 'self'");
    }
    expect(PAGE_CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(PAGE_CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
  });

  it('links the script by a content-hashed URL', async () => {
    const html = await (await fetch(`${server.url}${contract.getDocs.path}`)).text();
    const { hash } = loadRendererScript();
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(html).toContain(`<script src="${contract.getDocsScript.path}?v=${hash}"></script>`);
  });

  it('serves the renderer script from the server itself, without a source map link', async () => {
    const response = await fetch(scriptUrl(), { headers: { 'accept-encoding': 'identity' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('content-encoding')).toBeNull();
    const script = await response.text();
    expect(script).toBe(loadRendererScript().text);
    expect(script.length).toBeGreaterThan(100_000);
    expect(script).not.toContain('sourceMappingURL');
  });

  it.each([
    ['br', 'br', brotliDecompressSync],
    ['gzip', 'gzip, deflate', gunzipSync],
    ['br', 'gzip;q=0.5, br', brotliDecompressSync],
    ['gzip', 'br;q=0, gzip', gunzipSync],
  ])(
    'sends the script as %s for Accept-Encoding: %s, decoding to the script',
    async (encoding, accept, decode) => {
      const response = await rawGet(scriptUrl(), { 'accept-encoding': accept });
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBe(encoding);
      expect(response.headers.vary).toBe('Accept-Encoding');
      expect(Number(response.headers['content-length'])).toBe(response.body.length);
      expect(response.body.length).toBeLessThan(loadRendererScript().text.length / 3);
      expect(decode(response.body).toString('utf8')).toBe(loadRendererScript().text);
    },
  );

  it('caches the hashed URL as immutable for a year, any other as revalidated; 304 on its ETag', async () => {
    const { hash } = loadRendererScript();
    const hashed = await fetch(scriptUrl());
    expect(hashed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(hashed.headers.get('etag')).toBe(`"${hash}"`);
    const plain = await fetch(`${server.url}${contract.getDocsScript.path}?v=0000`);
    expect(plain.headers.get('cache-control')).toBe('public, no-cache');
    expect(plain.headers.get('etag')).toBe(`"${hash}"`);

    const again = await rawGet(scriptUrl(), {
      'if-none-match': `"${hash}"`,
      'accept-encoding': 'br',
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(`"${hash}"`);
    expect(again.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const changed = await rawGet(scriptUrl(), { 'if-none-match': '"another"' });
    expect(changed.status).toBe(200);
    expect(changed.body.toString('utf8')).toBe(loadRendererScript().text);
  });

  it('keeps the page and the API responses uncached', async () => {
    const page = await fetch(`${server.url}${contract.getDocs.path}`);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const document = await fetch(`${server.url}${contract.getOpenApiDocument.path}`);
    expect(document.headers.get('cache-control')).toBe('no-store');
    expect(document.headers.get('etag')).toBeNull();
  });

  it('answers 405 with Allow for another method on /docs', async () => {
    const response = await fetch(`${server.url}/docs`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('GET');
  });
});

/** A GET whose body is read as sent (fetch would decode it, and ask for its own encodings). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
        }),
      );
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}
