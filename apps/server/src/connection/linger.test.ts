import type { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openSocket, receivedUntilClose } from '../../test/support/raw-socket.ts';
import { startTestServer, type TestServer } from '../../test/support/start-test-server.ts';
import { LINGER_MAX_BYTES, LINGER_MAX_SMALL_READS } from './linger.ts';

// Answers sent before the request body was read (here a 413: the limit is 64 KiB) while the
// client is still sending, over raw sockets on 127.0.0.1. test/e2e/early-refusals.test.ts
// does the same with Node's fetch against a server process.

const MB = 1024 * 1024;

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  vi.useRealTimers();
  await server.dispose();
});

function createHeaders(length: number, token = server.token): string {
  return (
    `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`
  );
}

/** Writes `total` bytes in 64 KiB chunks, each after the last was taken; resolves with the first write error. */
async function sendBody(socket: Socket, total: number): Promise<Error | undefined> {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  for (let sent = 0; sent < total; sent += chunk.length) {
    if (socket.destroyed) return new Error('closed while sending');
    const error = await new Promise<Error | null | undefined>((resolve) =>
      socket.write(chunk.subarray(0, Math.min(chunk.length, total - sent)), resolve),
    );
    if (error) return error;
  }
  return undefined;
}

/** Resolves once `socket` has received a whole answer (headers and Content-Length body). */
function firstAnswer(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      if (end >= 0 && length !== undefined && text.length >= end + 4 + Number(length)) {
        resolve(text);
      }
    });
  });
}

describe('an answer sent while the client is still sending its body', () => {
  it('reaches the client, which can send the rest of its 12 MiB body; then the server closes', async () => {
    const socket = await openSocket(server.url, { allowHalfOpen: true });
    const received = receivedUntilClose(socket);
    let socketError: Error | undefined;
    socket.on('error', (error) => {
      socketError = error;
    });
    socket.write(createHeaders(12 * MB));
    const writeError = await sendBody(socket, 12 * MB);
    socket.end();
    const text = await received;

    expect(writeError ?? socketError).toBeUndefined(); // no EPIPE, no reset
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    expect(text).toContain('{"error":41301,"message":"Request body is larger than 65536 bytes"}');
  });

  it(`does not drain a body announced as larger than ${LINGER_MAX_BYTES / MB} MiB`, async () => {
    const socket = await openSocket(server.url, { allowHalfOpen: true });
    const received = receivedUntilClose(socket);
    socket.write(createHeaders(1024 * MB));
    const writeError = await sendBody(socket, LINGER_MAX_BYTES + 8 * MB);
    expect(writeError).toBeDefined(); // the server stopped reading and closed
    expect(await received).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('closes a client that stops sending once the linger time (5 s by default) is over', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const socket = await openSocket(server.url, { allowHalfOpen: true });
    const answer = firstAnswer(socket);
    const received = receivedUntilClose(socket);
    socket.write(`${createHeaders(MB)}${'a'.repeat(70 * 1024)}`);
    expect(await answer).toMatch(/^HTTP\/1\.1 413 /);

    vi.advanceTimersByTime(4_900);
    expect(await connectionCount()).toBe(1); // still lingering: the client may send the rest
    vi.advanceTimersByTime(100);
    expect(await connectionCount()).toBe(0); // the server's side is gone
    socket.destroy();
    expect(await received).toMatch(/^HTTP\/1\.1 413 /);
  });
});

describe('what a lingering close reads', () => {
  it('is raw bytes, never parsed: what follows a refused body is no request and no parse error', async () => {
    const parserErrors: string[] = [];
    server.server.on('clientError', (error: NodeJS.ErrnoException) => {
      parserErrors.push(error.code ?? '');
    });
    const socket = await openSocket(server.url, { allowHalfOpen: true });
    const answer = firstAnswer(socket);
    const received = receivedUntilClose(socket);
    // No credential: 401 before the body. Once it has come, the rest of the body, then a
    // request and garbage, which a parser would serve (a second answer) and refuse (400).
    socket.write(`${createHeaders(1_000, 'wrong')}{"id": 1,`);
    expect(await answer).toMatch(/^HTTP\/1\.1 401 /);
    socket.end(`${'x'.repeat(991)}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nzz\r\n\r\n`);
    const text = await received;
    expect(text.match(/HTTP\/1\.1/g)).toHaveLength(1);
    // At the client's end, Node 20 asks its parser to finish, which is still in the first body,
    // having seen none of the bytes after the refusal (HPE_INVALID_EOF_STATE); Node 24 does not.
    expect(parserErrors.filter((code) => code !== 'HPE_INVALID_EOF_STATE')).toEqual([]);
    expect(text).toContain('{"error":40101,');
  });

  it(`is at most ${LINGER_MAX_SMALL_READS} small reads: a body trickled in 1-byte chunks is cut there`, async () => {
    const socket = await openSocket(server.url, { allowHalfOpen: true });
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    const answer = firstAnswer(socket);
    socket.write(createHeaders(MB, 'wrong'));
    expect(await answer).toMatch(/^HTTP\/1\.1 401 /);
    let writes = 0;
    // Each byte in its own segment, once the last was taken: the server reads each alone.
    while (!socket.destroyed && writes < 20 * LINGER_MAX_SMALL_READS) {
      await new Promise((resolve) => socket.write('a', resolve));
      await new Promise((resolve) => setTimeout(resolve, 0));
      writes += 1;
    }
    expect(socket.destroyed).toBe(true);
    expect(writes).toBeGreaterThan(LINGER_MAX_SMALL_READS / 4);
  });
});

function connectionCount(): Promise<number> {
  return new Promise((resolve, reject) =>
    server.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}
