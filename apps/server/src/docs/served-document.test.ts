import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { stringifyJson } from '@plant-store/schema';
import { buildOpenApiDocument } from '@plant-store/schema/openapi';
import { describe, expect, it } from 'vitest';
import { requestOrigin, type ServedCopy, servedDocument } from './served-document.ts';

// What /openapi.json is built as (build-docs-assets.ts): the generated document, compact.
const BUILT = Buffer.from(stringifyJson(buildOpenApiDocument()));

function builtCopy(identity: Buffer = BUILT): ServedCopy {
  return { identity, hash: 'built', encoded: () => Buffer.from('built copy') };
}
const serversOf = (copy: ServedCopy) =>
  (JSON.parse(copy.identity.toString()) as { servers: { url: string }[] }).servers;

describe('requestOrigin', () => {
  it('is the protocol and the Host header, for a plain host[:port]', () => {
    expect(requestOrigin('http', '127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
    expect(requestOrigin('https', 'Plants.Example')).toBe('https://plants.example');
    expect(requestOrigin('http', '[::1]:8080')).toBe('http://[::1]:8080');
  });

  it('is undefined for no Host, or one that is more than a host and a port', () => {
    for (const host of [
      undefined,
      '',
      'a.test/x',
      'user@a.test',
      'a.test:80:80',
      'a test',
      '"a"',
    ]) {
      expect(requestOrigin('http', host), String(host)).toBeUndefined();
    }
  });
});

describe('servedDocument', () => {
  it("names the origin it is asked at as the document's server, the rest as built", () => {
    const copy = servedDocument(builtCopy())('http://127.0.0.1:3000');
    expect(serversOf(copy)).toEqual([
      { url: 'http://127.0.0.1:3000', description: 'The server this document is served from' },
    ]);
    const { servers: _served, ...rest } = JSON.parse(copy.identity.toString());
    const { servers: _built, ...built } = JSON.parse(BUILT.toString());
    expect(rest).toEqual(built);
    expect(copy.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(copy.hash).not.toBe(servedDocument(builtCopy())('http://other.test').hash);
  });

  it('compresses each copy to what decodes to it', () => {
    const copy = servedDocument(builtCopy())('http://127.0.0.1:3000');
    expect(brotliDecompressSync(copy.encoded('br')).equals(copy.identity)).toBe(true);
    expect(gunzipSync(copy.encoded('gzip')).equals(copy.identity)).toBe(true);
    expect(copy.encoded('br').length).toBeLessThan(copy.identity.length / 3);
  });

  it('sends the built document without an origin, or when it has no relative server', () => {
    const built = builtCopy();
    expect(servedDocument(built)(undefined)).toBe(built);
    const absolute = builtCopy(Buffer.from('{"servers":[{"url":"https://api.test"}]}'));
    expect(servedDocument(absolute)('http://127.0.0.1:3000')).toBe(absolute);
  });

  it('keeps the copies of the last `limit` origins, and the same copy for an origin kept', () => {
    const copyFor = servedDocument(builtCopy(), 2);
    const first = copyFor('http://a.test');
    expect(copyFor('http://a.test')).toBe(first);
    copyFor('http://b.test');
    copyFor('http://c.test');
    const again = copyFor('http://a.test');
    expect(again).not.toBe(first);
    expect(again.identity.equals(first.identity)).toBe(true);
  });
});
