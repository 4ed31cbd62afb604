import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { contract } from '@plant-store/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/support/start-test-server.ts';
import { loadRendererScript } from './renderer-script.ts';
import { versionedScriptUrl } from './script-caching.ts';

describe('the renderer script over real HTTP: compressed, with an ETag and a cache lifetime', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.dispose());
  const scriptUrl = () => `${server.url}${versionedScriptUrl()}`;

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

  it('answers HEAD with the headers of GET and no body', async () => {
    const response = await fetch(scriptUrl(), { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe(`"${loadRendererScript().hash}"`);
    expect(await response.text()).toBe('');
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
