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

  it('answers the page as HTML without a credential, with a self-only CSP', async () => {
    const response = await fetch(`${server.url}${contract.getDocs.path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(PAGE_CONTENT_SECURITY_POLICY);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    expect(html).toContain(`<script src="${contract.getDocsScript.path}"></script>`);
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

  it('serves the renderer script from the server itself, without a source map link', async () => {
    const response = await fetch(`${server.url}${contract.getDocsScript.path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const script = await response.text();
    expect(script).toBe(loadRendererScript());
    expect(script.length).toBeGreaterThan(100_000);
    expect(script).not.toContain('sourceMappingURL');
  });

  it('answers 405 with Allow for another method on /docs', async () => {
    const response = await fetch(`${server.url}/docs`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('GET');
  });
});
