import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { ERROR_MESSAGES } from '@plant-store/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config.ts';
import { openSocket, receivedUntilClose, sendRawBytes } from '../support/raw-socket.ts';
import { type ServerInTempFolder, spawnFloodableServer } from '../support/spawn-server.ts';

// Answers sent before the body was read, from a server process over real sockets: the request
// is answered with `Connection: close` and the rest of its body is not read (nor is a body on a
// route that takes none); the server's cost is read from its /proc. A client still sending a
// large body when refused may see a reset instead of the answer: the shipped proxy's lingering
// close is what delivers it (docs/deployment.md).

const MB = 1024 * 1024;
const token = `early-${randomBytes(24).toString('base64url')}`;
let spawned: ServerInTempFolder | undefined;
let url: string;

beforeAll(async () => {
  spawned = await spawnFloodableServer('plant-store-early-', token);
  url = spawned.url;
}, 60_000);
afterAll(() => spawned?.stop());

/** The bytes the server process has read (rchar), from /proc. */
function serverReadBytes(): number {
  const pid = spawned?.server.child.pid;
  return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
}

/**
 * Sends `head`, then `piece` as fast as the socket takes it for at most `seconds`; resolves with
 * the start of the answer, whether the server closed the connection, and the bytes it read.
 */
async function flood(head: Buffer | string, piece: Buffer, seconds: number) {
  const before = serverReadBytes();
  const socket = await openSocket(url);
  let answer = '';
  const closedByServer = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), seconds * 1000);
    const closed = () => {
      clearTimeout(timer);
      resolve(true);
    };
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', closed); // EPIPE or ECONNRESET: the server closed it
    socket.on('close', closed);
    const pump = () => {
      while (!socket.destroyed && socket.write(piece));
      if (!socket.destroyed) socket.once('drain', pump);
    };
    socket.write(head);
    pump();
  });
  socket.destroy();
  return { answer, closedByServer, readBytes: serverReadBytes() - before };
}

/**
 * Sends `head` and `sent` (what the server needs before it can answer), then writes nothing
 * more, and resolves with everything received until the server closed. A client that goes on
 * writing into a closed connection gets EPIPE and, in Node, loses what it had not read yet:
 * `flood` measures that case, this one the answer.
 */
async function answerAfterSending(head: Buffer | string, sent: Buffer): Promise<string> {
  const socket = await openSocket(url);
  let answer = '';
  socket.on('data', (chunk: Buffer) => {
    answer += chunk.toString('latin1');
  });
  await new Promise((resolve) => {
    socket.on('error', resolve);
    socket.on('close', resolve);
    socket.write(head);
    socket.write(sent);
  });
  socket.destroy();
  return answer;
}

const KiB = 1024;
/** What an unread body may cost the server: no more than a few reads. */
const READ_BOUND_BYTES = 2 * 1024 * KiB;

const chunked = (data: Buffer) =>
  Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
// gzip of empty stored blocks: each 5 bytes decode to nothing, so only the wire bytes count.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
const EMPTY_BLOCKS = Buffer.alloc(65_535 - (65_535 % 5));
for (let at = 0; at < EMPTY_BLOCKS.length; at += 5) EMPTY_BLOCKS.set([0, 0, 0, 0xff, 0xff], at);
const SOME_BLOCKS = EMPTY_BLOCKS.subarray(0, 16_380);
const A64 = chunked(Buffer.alloc(64 * KiB, 'a'));
const A16 = chunked(Buffer.alloc(16 * KiB, 'a'));
/** Chunks of empty blocks one past BODY_LIMIT on the wire: what a 413 needs to be sent. */
const PAST_LIMIT = Buffer.concat(
  Array.from({ length: Math.ceil(DEFAULTS.bodyLimitBytes / EMPTY_BLOCKS.length) + 1 }, () =>
    chunked(EMPTY_BLOCKS),
  ),
);
const head = (request: string, framing: string, first = Buffer.alloc(0)) =>
  Buffer.concat([Buffer.from(`${request}\r\nHost: x\r\n${framing}\r\n`), first]);
const GZIP_CREATE =
  `POST /plants HTTP/1.1\r\nAuthorization: Bearer ${token}\r\n` +
  'Content-Type: application/json\r\nContent-Encoding: gzip';
const TE = 'Transfer-Encoding: chunked\r\n';
const TOO_LARGE = new RegExp(
  `^HTTP/1\\.1 413 [\\s\\S]*"error":41301,"message":"${ERROR_MESSAGES.payloadTooLarge(DEFAULTS.bodyLimitBytes)}"`,
);

type Unread = [string, Buffer, Buffer, Buffer, RegExp];
// [case, head, piece sent as fast as the socket takes it, sent before reading, answer]
const UNREAD: Unread[] = [
  ...['/openapi.json', '/', '/healthz', '/docs'].map(
    (path): Unread => [
      `GET ${path} with an endless chunked body`,
      head(`GET ${path} HTTP/1.1`, TE),
      A64,
      A16,
      /^HTTP\/1\.1 200 /,
    ],
  ),
  [
    'GET of an unknown path (404) with an endless chunked body',
    head('GET /no-such-path HTTP/1.1', TE),
    A64,
    A16,
    /^HTTP\/1\.1 404 [\s\S]*"error":40401/,
  ],
  [
    'a create without a credential (401), endless chunked body',
    head('POST /plants HTTP/1.1\r\nContent-Type: application/json', TE),
    A64,
    A16,
    /^HTTP\/1\.1 401 [\s\S]*"error":40101/,
  ],
  [
    'gzip of empty blocks, Content-Length: 200 MB (413 before a byte is read)',
    head(GZIP_CREATE, `Content-Length: ${200 * MB}\r\n`, GZIP_HEADER),
    EMPTY_BLOCKS,
    SOME_BLOCKS,
    TOO_LARGE,
  ],
  [
    'an endless chunked gzip body of empty blocks (413 past BODY_LIMIT on the wire)',
    head(GZIP_CREATE, TE, chunked(GZIP_HEADER)),
    chunked(EMPTY_BLOCKS),
    PAST_LIMIT,
    TOO_LARGE,
  ],
];

describe('a body nobody reads: answered, the connection closed, the rest not read', () => {
  it.each(UNREAD)('%s: the rest not read', async (_case, start, piece) => {
    const { closedByServer, readBytes } = await flood(start, piece, 5);
    expect(closedByServer).toBe(true);
    expect(readBytes).toBeLessThan(READ_BOUND_BYTES);
  });

  it.each(UNREAD)(
    '%s: the answer, with Connection: close',
    async (_case, start, _p, sent, answer) => {
      const received = await answerAfterSending(start, sent);
      expect(received).toMatch(answer);
      expect(received).toMatch(/\r\nconnection: close\r\n/i);
    },
  );
});

describe('an encoded body within the limit', () => {
  it('a gzip body within the limit on the wire and decoded is served', async () => {
    const body = gzipSync(Buffer.from('{"id": 4141, "name": "Zipped"}'));
    const response = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'Zipped' });
  });
});

/**
 * Sends a create's headers with `Expect: 100-continue` and no body, and resolves with what the
 * server sends first: `100 Continue` (the body is wanted) or a final answer (it is not).
 */
async function firstAnswerTo(headers: string): Promise<string> {
  const socket = await openSocket(url);
  try {
    return await new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0);
        if (text.startsWith('HTTP/1.1 100 ') || text.length >= end + 4 + length) resolve(text);
      });
      socket.once('close', () => reject(new Error(`closed after ${JSON.stringify(text)}`)));
      socket.write(
        `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\n${headers}\r\n`,
      );
    });
  } finally {
    socket.destroy();
  }
}

describe('Expect: 100-continue', () => {
  // The refusal comes before `100 Continue`: a client that waits for it sends no body byte.
  const twoMegabytes = 'Content-Type: application/json\r\nContent-Length: 2000000\r\n';
  it.each([
    ['no credential → 401', twoMegabytes, /^HTTP\/1\.1 401 [\s\S]*"error":40101/],
    [
      'a credential that is not valid → 401',
      `${twoMegabytes}Authorization: Bearer not-a-valid-token-at-all\r\n`,
      /^HTTP\/1\.1 401 [\s\S]*"error":40101/,
    ],
    [
      'a Content-Length over the limit → 413',
      `${twoMegabytes}Authorization: Bearer ${token}\r\n`,
      /^HTTP\/1\.1 413 [\s\S]*"error":41301/,
    ],
    [
      'a body that is not JSON → 415',
      `Content-Type: text/plain\r\nContent-Length: 20\r\nAuthorization: Bearer ${token}\r\n`,
      /^HTTP\/1\.1 415 [\s\S]*"error":41501/,
    ],
  ])('%s, with no 100 Continue before it', async (_name, headers, expected) => {
    const answer = await firstAnswerTo(headers);
    expect(answer).not.toMatch(/^HTTP\/1\.1 100 /);
    expect(answer).toMatch(expected);
  });

  it('an acceptable request gets 100 Continue, then its answer once the body is sent', async () => {
    const body = '{"id": 100100, "name": "Continued"}';
    const socket = await openSocket(url);
    const received = receivedUntilClose(socket);
    socket.write(
      `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nConnection: close\r\n` +
        `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n`,
    );
    await new Promise((resolve) => socket.once('data', resolve));
    socket.write(body);
    const answer = await received;
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(answer).toMatch(/\{"name":"Continued"\}$/);
  });
});

describe('CONNECT', () => {
  it('gets 405 in the Error shape, then the connection closes', async () => {
    const answer = await sendRawBytes(url, 'CONNECT host:22 HTTP/1.1\r\nHost: host:22\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toMatch(
      /\r\n\r\n\{"error":40501,"message":"CONNECT is not allowed: this server is not a proxy \(asked for host:22\)"\}$/,
    );
  });
});
