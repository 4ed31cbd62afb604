import { contract } from '@plant-store/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPackageScript } from '../../scripts/docs/renderer-script.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';

import { DOCS_PATHS } from './docs-assets.ts';
import { PAGE_CONTENT_SECURITY_POLICY } from './serve-docs-assets.ts';

describe('GET /docs and its script injected into the app', () => {
  let server: TestApp;
  beforeAll(async () => {
    server = await createTestApp();
  });
  afterAll(() => server.dispose());

  it('answers the page as HTML without a credential, with a self-only CSP', async () => {
    const response = await server.fetch(DOCS_PATHS.page);
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
    const html = await (await server.fetch(DOCS_PATHS.page)).text();
    const link = /<script src="([^"]+)"><\/script>/.exec(html)?.[1] ?? '';
    expect(link).toMatch(new RegExp(`^${DOCS_PATHS.script}\\?v=[0-9a-f]{16}$`));
  });

  it('serves the renderer script from the server itself, without a source map link', async () => {
    const html = await (await server.fetch(DOCS_PATHS.page)).text();
    const link = /<script src="([^"]+)"><\/script>/.exec(html)?.[1] ?? '';
    const response = await server.fetch(link, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('content-encoding')).toBeNull();
    const script = await response.text();
    expect(script).toBe(readPackageScript());
    expect(script.length).toBeGreaterThan(100_000);
    expect(script).not.toContain('sourceMappingURL');
  });

  it('lets clients keep the page and the document, revalidated by their ETag; the API answers uncached', async () => {
    for (const path of [DOCS_PATHS.page, contract.getOpenApiDocument.path]) {
      const response = await server.fetch(path);
      expect(response.headers.get('cache-control'), path).toBe('public, no-cache');
      expect(response.headers.get('etag'), path).toMatch(/^W\/"[0-9a-f]{16}"$/);
    }
    const health = await server.fetch(contract.getHealth.path);
    expect(health.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 405 with Allow for another method on /docs', async () => {
    const response = await server.fetch('/docs', { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('GET');
  });
});
