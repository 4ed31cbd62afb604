import { Agent, request } from 'node:http';
import { connect as connectHttp2 } from 'node:http2';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { ErrorBody } from '@plant-store/schema';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config.ts';
import { freePort } from '../support/free-port.ts';
import { openSocket, receivedUntilClose, sendRawBytes } from '../support/raw-socket.ts';
import { type CannedUpstream, startCannedUpstream, type UpstreamMode } from './canned-upstream.ts';
import { FORGED_FORMS } from './forged-addresses.ts';
import {
  type ProxyKind,
  type ProxyProcess,
  replaceLines,
  shippedConfig,
  startProxy,
} from './proxy-process.ts';
import { splitRaw } from './raw-answers.ts';

// The shipped deploy/nginx.conf and deploy/haproxy.cfg answer their own refusals and failures
// (400, 408, 413, 429, 502, 503, 504) in the server's Error shape with application/json, not
// their HTML pages, in front of canned instances (canned-upstream.ts), except where the proxy
// cannot (each exception pinned here, and explained in the deploy file and docs/deployment.md):
// - haproxy 2.6 answers what its H1 parser refuses before a request exists (a bad request
//   line or header, a bad chunk read with the headers, the rest of an HTTP/2 preface) and
//   headers not complete within timeout http-request with its built-in HTML 400 and 408, and
//   a Transfer-Encoding that codes the body before chunked with its HTML 422: mux_h1.c's
//   h1_send_error writes the compiled-in http_err_msgs[], whatever the configuration says
//   (fixed upstream by commit d252ec2be, haproxy 3.3; not in Debian's 2.6.12).
// - nginx 1.22 answers nothing to a client too slow with its headers or body: it closes the
//   connection (ngx_http_finalize_request terminates on NGX_HTTP_REQUEST_TIME_OUT), logging 408.
// - nginx turns 502 and 504 into its 503 (error_page ... =503): retry later, as both mean.
// - haproxy refuses a 101st connection from one address before any HTTP (a reset).
// And what the edge does with requests an instance must not see as sent: HTTP/1.1 only (an h2c
// client is refused), the client's address set from the connection (no forged one passes), a
// Content-Length over the bound answered 413 before the body (read by the client, 20 uploads
// of 3 MB of 20), TRACE refused by nginx in the Error shape, HTTP/1.0 without Host served.
// Everything runs as shipped (ports changed) but two numbers a test cannot reach in
// its time, lowered in a variant where they are used: the 30 s an instance has to answer
// (504) and the per-address request rates (429).

async function errorBody(response: Response): Promise<ErrorBody> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return ErrorBody.parse(await response.json());
}

/** The proxy's own "no instance can answer" (its 503, or haproxy's 502/504): JSON 50301, retry in 5 s. */
async function expectUnavailable(response: Response, status: number): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get('retry-after')).toBe('5');
  expect(await errorBody(response)).toEqual({
    error: 50301,
    message: expect.stringContaining('retry after the Retry-After seconds'),
  });
}

/** A raw answer in the Error shape: its status, Content-Type and body. */
function parseRaw(answer: string): { status: number; type: string; body: ErrorBody } {
  const { status, type, body } = splitRaw(answer);
  return { status, type, body: ErrorBody.parse(JSON.parse(body)) };
}

const JSON_TYPE = expect.stringMatching(/^application\/json/);

/** The proxy as shipped (ports and paths changed) before two canned instances in `mode`. */
async function withProxy(
  proxy: ProxyKind,
  mode: UpstreamMode | 'none',
  run: (running: ProxyProcess, upstreams: readonly CannedUpstream[]) => Promise<void>,
  variant: (config: string) => string = (config) => config,
): Promise<void> {
  const port = await freePort();
  const ports = [await freePort(), await freePort()] as const;
  const upstreams =
    mode === 'none' ? [] : await Promise.all(ports.map((p) => startCannedUpstream(p, mode)));
  try {
    const running = await startProxy(
      proxy,
      port,
      () => variant(shippedConfig(proxy, port, ports)),
      mode === 'none' ? 503 : 200,
    );
    try {
      await run(running, upstreams);
    } finally {
      await running.stop();
    }
  } finally {
    await Promise.all(upstreams.map((upstream) => upstream.close()));
  }
}

/** The requests other than health checks that reached the canned instances. */
function reached(upstreams: readonly CannedUpstream[]): string[] {
  return upstreams.flatMap((upstream) => upstream.requests);
}

/** GET `path` from `base` on `agent`'s keep-alive connection from `localAddress`. */
function get(
  base: string,
  path: string,
  agent: Agent,
  localAddress: string,
): Promise<{ status: number; type: string; retryAfter: string; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    request({ host: hostname, port: Number(port), path, agent, localAddress }, (incoming) => {
      let body = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => {
        body += chunk;
      });
      incoming.on('end', () =>
        resolve({
          status: incoming.statusCode ?? 0,
          type: incoming.headers['content-type'] ?? '',
          retryAfter: String(incoming.headers['retry-after'] ?? ''),
          body,
        }),
      );
      incoming.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/**
 * Connects from `localAddress`, sends a GET and resolves with what came back until the
 * connection closed, and the error that closed it, if any (a refused connection is reset).
 */
function overTheLimit(
  base: string,
  localAddress: string,
): Promise<{ received: string; error: string | undefined }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const socket = connect({ host: hostname, port: Number(port), localAddress }, () =>
      socket.write('GET /over HTTP/1.1\r\nHost: x\r\n\r\n'),
    );
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (cause: NodeJS.ErrnoException) => {
      error = cause.code;
    });
    socket.on('close', () =>
      resolve({ received: Buffer.concat(chunks).toString('latin1'), error }),
    );
  });
}

/**
 * Writes `bytes` on a new connection and resolves with the first answer once it is whole (its
 * Content-Length), or with what came before the connection closed (nginx may linger for
 * seconds after an error before it closes).
 */
async function firstAnswer(base: string, bytes: string): Promise<string> {
  const socket = await openSocket(base);
  return new Promise((resolve) => {
    let received = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      const length = /^content-length: *(\d+)/im.exec(received.slice(0, end))?.[1];
      if (end >= 0 && length !== undefined && received.length >= end + 4 + Number(length)) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('close', () => resolve(received));
    socket.write(bytes);
  });
}

describe.each(['nginx', 'haproxy'] as const)('%s as shipped: its own answers', (proxy) => {
  it('with no instance up: 503, 413 and 400', async () => {
    await withProxy(proxy, 'none', async (running) => {
      const response = await fetch(`${running.url}/plants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
        body: '{"id":1,"name":"Fern"}',
      });
      await expectUnavailable(response, 503);
      for (const [method, path, size] of [
        ['POST', '/plants', DEFAULTS.bodyLimitBytes + 1],
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
          ).toMatchObject({ status: 413, type: JSON_TYPE, body: { error: 41301 } });
        }
      }

      // A malformed chunk once the request's headers are in: the request exists, and both
      // answer 400 in the Error shape (haproxy: its http-error status 400).
      const socket = await openSocket(running.url);
      const answer = receivedUntilClose(socket);
      socket.write(
        'POST /plants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      // Far longer than either takes to read the headers, so the chunk comes in a read of its
      // own.
      await delay(500);
      socket.write('zz\r\n{}\r\n0\r\n\r\n');
      expect(parseRaw(await answer), 'a malformed chunk').toMatchObject({
        status: 400,
        type: JSON_TYPE,
        body: { error: 40004 },
      });

      // Requests the parser refuses before they exist (with haproxy, some pass on: the
      // server answers them, as docs/api.md says).
      for (const [malformed, haproxyRefuses] of [
        ['BREW /plants HTCPCP\r\n\r\n', true],
        ['BAD REQUEST LINE\r\n\r\n', true],
        ['GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n', true],
        ['GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', true],
        [
          'POST /plants HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
          true,
        ],
        ['POST /plants HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n', true],
        // Over nginx's large_client_header_buffers (8 KiB) and haproxy's buffer (96 KiB).
        [`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(120_000)}\r\n\r\n`, true],
        [`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, false],
        [`GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, false],
        ['GET / HTTP/2.0\r\nHost: x\r\n\r\n', false],
      ] as const) {
        const what = JSON.stringify(malformed.slice(0, 60));
        if (proxy === 'nginx') {
          expect(parseRaw(await firstAnswer(running.url, malformed)), what).toMatchObject({
            status: 400,
            type: JSON_TYPE,
            body: { error: 40004 },
          });
        } else if (haproxyRefuses) {
          // haproxy 2.6's H1 parser writes its compiled-in page, whatever the configuration
          // says (see the top of this file). When this fails, the installed haproxy has the
          // fix: take the exception out of deploy/haproxy.cfg, the docs and this test.
          expect(splitRaw(await firstAnswer(running.url, malformed)), what).toMatchObject({
            status: 400,
            type: 'text/html',
          });
        }
      }
      // A Transfer-Encoding that ends in chunked but codes the body otherwise: nginx's 501,
      // shaped as its 400; haproxy 2.6's parser answers its compiled-in HTML 422.
      const coded =
        'POST /plants HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n';
      if (proxy === 'nginx') {
        expect(parseRaw(await firstAnswer(running.url, coded))).toMatchObject({
          status: 400,
          type: JSON_TYPE,
          body: { error: 40004 },
        });
      } else {
        expect(splitRaw(await firstAnswer(running.url, coded))).toMatchObject({
          status: 422,
          type: 'text/html',
        });
      }
    });
  });

  it('instances that close the connection without an answer: 502 (nginx: its 503)', async () => {
    await withProxy(proxy, 'close', async (running, upstreams) => {
      const response = await fetch(`${running.url}/plants/1`);
      await expectUnavailable(response, proxy === 'nginx' ? 503 : 502);
      expect(reached(upstreams)).toContain('GET /plants/1 HTTP/1.1');
    });
  });

  it('instances that do not answer in time: 504 (nginx: its 503), their timeout lowered to 2 s', async () => {
    // As shipped, 30 s (timeout server, proxy_read_timeout), and haproxy retries a response
    // timeout 3 times, on the other instance: 2 minutes to wait. The variant lowers that
    // number only.
    const lowered = (config: string) =>
      replaceLines(proxy, config, [
        proxy === 'nginx'
          ? [/^(\s*proxy_read_timeout) 30s;$/m, '$1 2s;']
          : [/^(\s*timeout server) 30s$/m, '$1 2s'],
      ]);
    await withProxy(
      proxy,
      'silent',
      async (running, upstreams) => {
        const response = await fetch(`${running.url}/plants/1`);
        await expectUnavailable(response, proxy === 'nginx' ? 503 : 504);
        expect(reached(upstreams)).toContain('GET /plants/1 HTTP/1.1');
      },
      lowered,
    );
  });

  it('the 101st request in progress (nginx: 429) or connection (haproxy: refused) from one address', async () => {
    await withProxy(proxy, 'silent', async (running, upstreams) => {
      const held = await Promise.all(
        Array.from({ length: 100 }, () => openSocket(running.url, { localAddress: '127.0.0.3' })),
      );
      const until = async (done: () => boolean) => {
        const deadline = performance.now() + 20_000;
        while (!done() && performance.now() < deadline) await delay(50);
      };
      try {
        for (const socket of held) socket.write('GET /held HTTP/1.1\r\nHost: x\r\n\r\n');
        // All 100 in progress: at the instances, which never answer.
        await until(() => reached(upstreams).length >= 100);
        expect(reached(upstreams)).toHaveLength(100);
        const { received: raw, error } = await overTheLimit(running.url, '127.0.0.3');
        if (proxy === 'nginx') {
          expect(parseRaw(raw)).toEqual({
            status: 429,
            type: JSON_TYPE,
            body: {
              error: 42901,
              message: expect.stringContaining('retry after the Retry-After seconds'),
            },
          });
          expect(splitRaw(raw).head).toMatch(/^retry-after: 1$/im);
        } else {
          // tcp-request connection reject: closed at once (a reset, which may come before the
          // connect callback), before any HTTP: no answer to shape.
          expect({ raw, error }).toMatchObject({ raw: '' });
          expect([undefined, 'ECONNRESET']).toContain(error);
        }
        expect(reached(upstreams)).not.toContain('GET /over HTTP/1.1');
        // Another address is not refused.
        const other = await openSocket(running.url, { localAddress: '127.0.0.4' });
        other.write('GET /other HTTP/1.1\r\nHost: x\r\n\r\n');
        await until(() => reached(upstreams).includes('GET /other HTTP/1.1'));
        other.destroy();
        expect(reached(upstreams)).toContain('GET /other HTTP/1.1');
      } finally {
        for (const socket of held) socket.destroy();
      }
    });
  });

  // The shipped ceilings take 10,000 requests a second from one address for a second (nginx:
  // 10,000/s, bursts of 10,000) or 10 s (haproxy: 100,000 in 10 s): one 2-core machine sends
  // barely more than that through either proxy, too close to cross reliably as shipped. The
  // variant lowers those numbers only; the rules and their answers are the shipped ones.
  it('429 over the request rate of one address (its ceiling lowered)', async () => {
    const allowed = proxy === 'nginx' ? 6 : 20;
    const lowered = (config: string) =>
      replaceLines(
        proxy,
        config,
        proxy === 'nginx'
          ? [
              [/(zone=per_address_requests:10m) rate=10000r\/s;/, '$1 rate=1r/s;'],
              [/(limit_req zone=per_address_requests) burst=10000 nodelay;/, '$1 burst=5 nodelay;'],
            ]
          : [[/(\{ sc_http_req_rate\(0\) gt )100000( \})/, '$120$2']],
      );
    await withProxy(
      proxy,
      'ok',
      async (running) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
          const statuses: number[] = [];
          let refused: Awaited<ReturnType<typeof get>> | undefined;
          while (refused === undefined && statuses.length < 3 * allowed) {
            const answer = await get(running.url, '/plants/1', agent, '127.0.0.3');
            if (answer.status === 429) refused = answer;
            else statuses.push(answer.status);
          }
          // nginx's bucket leaks 1 a second: a slow machine lets one more through per second.
          expect(statuses.length).toBeGreaterThanOrEqual(allowed);
          expect(statuses).toEqual(Array(statuses.length).fill(200));
          expect(refused).toMatchObject({
            status: 429,
            type: JSON_TYPE,
            retryAfter: proxy === 'nginx' ? '1' : '10',
          });
          expect(ErrorBody.parse(JSON.parse(refused?.body ?? ''))).toEqual({
            error: 42901,
            message: expect.stringContaining('retry after the Retry-After seconds'),
          });
          expect((await get(running.url, '/plants/1', agent, '127.0.0.4')).status).toBe(200);
        } finally {
          agent.destroy();
        }
      },
      lowered,
    );
  });

  it('a client too slow with its headers or its body: 408, or closed', async () => {
    await withProxy(proxy, 'ok', async (running, upstreams) => {
      const slow = async (name: string, start: string) => {
        const socket = await openSocket(running.url);
        const answer = receivedUntilClose(socket);
        socket.write(start);
        return { name, raw: await answer };
      };
      const post = 'POST /plants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n';
      const outcomes = await Promise.all([
        slow('headers', post),
        slow('body', `${post}Content-Length: 100\r\n\r\n{"id"`),
        slow('chunked body', `${post}Transfer-Encoding: chunked\r\n\r\n5\r\n{"id"\r\n`),
      ]);
      for (const { name, raw } of outcomes) {
        if (proxy === 'nginx') {
          // Closed without a byte of answer.
          expect(raw, name).toBe('');
        } else if (name === 'headers') {
          // haproxy 2.6's parser: its compiled-in page (see the top of this file).
          expect(splitRaw(raw), name).toMatchObject({ status: 408, type: 'text/html' });
        } else {
          expect(parseRaw(raw), name).toEqual({
            status: 408,
            type: JSON_TYPE,
            body: { error: 40801, message: expect.any(String) },
          });
        }
      }
      if (proxy === 'nginx') {
        // nginx logs each as a 408 with 0 bytes sent: the timeout closed them.
        const timedOut = running
          .accessLog()
          .split('\n')
          .filter((line) => line.includes('"POST /plants HTTP/1.1" 408 0 '));
        expect(timedOut).toHaveLength(3);
      }
      expect(reached(upstreams)).toEqual([]);
    });
  }, 120_000);
  it('sets X-Forwarded-For from the connection: no forged address reaches an instance', async () => {
    await withProxy(proxy, 'ok', async (running, upstreams) => {
      const sent: { path: string; from: string }[] = [];
      for (const from of ['127.0.0.1', '127.0.0.5']) {
        for (const [i, form] of FORGED_FORMS.entries()) {
          const path = `/forged-${from}-${i}`;
          sent.push({ path, from });
          const socket = await openSocket(running.url, { localAddress: from });
          const answer = receivedUntilClose(socket);
          socket.write(
            `GET ${path} HTTP/1.1\r\nHost: x\r\n${form('127.0.0.9')}Connection: close\r\n\r\n`,
          );
          expect(splitRaw(await answer).status, path).toBe(200);
        }
      }
      for (const { path, from } of sent) {
        const head = upstreams
          .flatMap((upstream) => upstream.heads)
          .find((h) => h.startsWith(`GET ${path} `));
        const lines = (head ?? '').split('\r\n').slice(1);
        const named = (name: string) =>
          lines
            .filter((line) => line.toLowerCase().startsWith(`${name}:`))
            .map((line) => line.slice(name.length + 1).trim());
        expect({
          path,
          forwardedFor: named('x-forwarded-for'),
          forwarded: named('forwarded'),
          realIp: named('x-real-ip'),
        }).toEqual({
          path,
          forwardedFor: [from],
          forwarded: [],
          realIp: [],
        });
      }
    });
  });

  it('HTTP/1.1 only: an HTTP/2 prior-knowledge (h2c) client is refused, nothing reaches an instance', async () => {
    await withProxy(proxy, 'ok', async (running, upstreams) => {
      const outcome = await new Promise<string>((resolve) => {
        const session = connectHttp2(running.url);
        session.on('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code}`));
        const stream = session.request({ ':path': '/over-h2' });
        stream.on('response', (headers) => resolve(`answered ${headers[':status']}`));
        stream.on('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code}`));
        stream.on('close', () => resolve('closed'));
        stream.end();
      }).finally(() => undefined);
      expect(outcome).toMatch(/^(error|closed)/);
      // The preface itself: one 400 (haproxy: then its HTML 400 for the rest of the preface,
      // which its H1 parser refuses; see the top of this file), and the connection closed.
      const answer = await sendRawBytes(running.url, 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
      expect(splitRaw(answer).status).toBe(400);
      expect(reached(upstreams)).toEqual([]);
    });
  });

  it('TRACE: nginx answers its JSON 405; haproxy passes it on, for the server to answer', async () => {
    await withProxy(proxy, 'ok', async (running, upstreams) => {
      const answer = await sendRawBytes(
        running.url,
        'TRACE /plants HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      if (proxy === 'nginx') {
        // server_tokens off: no version.
        expect(splitRaw(answer).head).toMatch(/^server: nginx\r?$/im);
        expect(parseRaw(answer)).toEqual({
          status: 405,
          type: JSON_TYPE,
          body: { error: 40501, message: 'TRACE is not allowed' },
        });
        expect(reached(upstreams)).toEqual([]);
      } else {
        expect(reached(upstreams)).toEqual(['TRACE /plants HTTP/1.1']);
      }
    });
  });

  it('a Content-Length over the bound: 413 before any body, one answer', async () => {
    await withProxy(proxy, 'ok', async (running, upstreams) => {
      const head = (length: string) =>
        `POST /plants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{}`;
      // 2 GB announced, 2 bytes sent and the body never finished: the answer comes all the same
      // (a proxy waiting for the body would answer 408, or nothing).
      for (const length of ['2000000000', String(DEFAULTS.bodyLimitBytes + 1)]) {
        expect(parseRaw(await firstAnswer(running.url, head(length))), length).toMatchObject({
          status: 413,
          type: JSON_TYPE,
          body: { error: 41301 },
        });
      }
      // 2^64: one answer in the Error shape (nginx: a Content-Length it cannot read, 400), then
      // the connection closed once the client ends its side.
      const socket = await openSocket(running.url);
      const all = receivedUntilClose(socket);
      socket.write(head('18446744073709551616'));
      socket.once('data', () => socket.end());
      const received = await all;
      expect(received.match(/HTTP\/1\.1 \d{3} /g), received).toHaveLength(1);
      expect(parseRaw(received)).toMatchObject({
        status: proxy === 'nginx' ? 400 : 413,
        type: JSON_TYPE,
        body: { error: proxy === 'nginx' ? 40004 : 41301 },
      });
      expect(reached(upstreams)).toEqual([]);
    });
  });

  it('a 3 MB upload: 413 read by the client, 20 of 20', async () => {
    await withProxy(proxy, 'ok', async (running, upstreams) => {
      const body = Buffer.alloc(3_000_000, 'x');
      const outcomes: Record<string, number> = {};
      for (let i = 0; i < 20; i++) {
        const outcome = await new Promise<string>((resolve) => {
          const { hostname, port } = new URL(running.url);
          const outgoing = request(
            {
              host: hostname,
              port: Number(port),
              method: 'POST',
              path: '/plants',
              agent: false,
              headers: { 'content-type': 'application/json', 'content-length': body.length },
            },
            (incoming) => {
              let text = '';
              incoming.setEncoding('utf8');
              incoming.on('data', (chunk: string) => {
                text += chunk;
              });
              incoming.on('end', () => resolve(`${incoming.statusCode} ${JSON.parse(text).error}`));
              incoming.on('error', (error: NodeJS.ErrnoException) => resolve(`${error.code}`));
            },
          );
          outgoing.on('error', (error: NodeJS.ErrnoException) => resolve(`${error.code}`));
          outgoing.end(body);
        });
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
      expect(outcomes).toEqual({ '413 41301': 20 });
      expect(reached(upstreams)).toEqual([]);
    });
  });

  it('HTTP/1.0 without Host: served', async () => {
    await withProxy(proxy, 'ok', async (running, upstreams) => {
      const answer = await sendRawBytes(running.url, 'GET /http-1.0 HTTP/1.0\r\n\r\n');
      expect(splitRaw(answer).status).toBe(200);
      expect(reached(upstreams)).toEqual([
        expect.stringMatching(/^GET \/http-1\.0 HTTP\/1\.[01]$/),
      ]);
    });
  });
});
