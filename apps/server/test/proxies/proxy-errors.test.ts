import { ErrorBody } from '@plant-store/schema';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { sendRawBytes } from '../support/raw-socket.ts';
import { shippedConfig, startProxy } from './proxy-process.ts';

// The shipped deploy/nginx.conf and deploy/haproxy.cfg answer their own refusals and failures
// in the server's Error shape with application/json, never in their HTML pages: here with no
// instance up at all (503), a body over their bounds (413: 64 KiB on POST /plants, 4 KiB
// elsewhere, refused before any instance is asked) and a request they cannot parse (400;
// haproxy 2.6's parser still answers that one with its HTML page).

async function errorBody(response: Response): Promise<ErrorBody> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return ErrorBody.parse(await response.json());
}

/** A raw answer's status, Content-Type and Error body. */
function parseRaw(answer: string): { status: number; type: string; body: ErrorBody } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]),
    type: /^content-type: *(.*)$/im.exec(head)?.[1] ?? '',
    body: ErrorBody.parse(JSON.parse(body)),
  };
}

describe.each(['nginx', 'haproxy'] as const)('%s with no instance up', (proxy) => {
  it('answers 503, 413 and 400 in the Error shape', async () => {
    const port = await freePort();
    const upstreams = [await freePort(), await freePort()] as const;
    const running = await startProxy(
      proxy,
      port,
      (folder) => shippedConfig(proxy, port, upstreams, folder),
      503,
    );
    try {
      const response = await fetch(`${running.url}/plants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
        body: '{"id":1,"name":"Fern"}',
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await errorBody(response)).toEqual({
        error: 50301,
        message: expect.stringContaining('retry after the Retry-After seconds'),
      });
      for (const [method, path, size] of [
        ['POST', '/plants', 64 * 1024 + 1],
        ['GET', '/openapi.json', 4 * 1024 + 1],
        ['GET', '/', 4 * 1024 + 1],
      ] as const) {
        const head = `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n`;
        const body = 'x'.repeat(size);
        for (const [framing, request] of [
          ['Content-Length', `${head}Content-Length: ${size}\r\n\r\n${body}`],
          // No length to refuse it by: refused once more than the bound has arrived.
          [
            'chunked',
            `${head}Transfer-Encoding: chunked\r\n\r\n${size.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
          ],
        ] as const) {
          expect(
            parseRaw(await sendRawBytes(running.url, request)),
            `${method} ${path}, ${framing}`,
          ).toMatchObject({
            status: 413,
            type: expect.stringMatching(/^application\/json/),
            body: { error: 41301 },
          });
        }
      }
      const malformed = await sendRawBytes(running.url, 'BREW /plants HTCPCP\r\n\r\n');
      if (proxy === 'nginx') {
        expect(parseRaw(malformed)).toMatchObject({
          status: 400,
          type: expect.stringMatching(/^application\/json/),
          body: { error: 40004 },
        });
      } else {
        // haproxy 2.6's parser answers with its built-in HTML page (http-error and errorfile
        // do not reach it): a known gap, documented in deploy/haproxy.cfg.
        expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
      }
    } finally {
      await running.stop();
    }
  });
});
