import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSocket, receivedUntilClose, sendRawBytes } from '../support/raw-socket.ts';
import { type ServerInTempFolder, spawnFloodableServer } from '../support/spawn-server.ts';

// Answers sent before the body was read, while the client is still sending it, received by
// Node's fetch (undici: what the client package and most JS callers use) from a server
// process, as a caller meets them. Without lingering close, about half of these were lost to
// EPIPE: the server closed with the body unread and the client's TCP stack got a reset.

const MB = 1024 * 1024;
const TRIES = 20;
const token = `early-${randomBytes(24).toString('base64url')}`;
let spawned: ServerInTempFolder | undefined;
let url: string;

beforeAll(async () => {
  spawned = await spawnFloodableServer('plant-store-early-', token);
  url = spawned.url;
}, 60_000);
afterAll(() => spawned?.stop());

/** POSTs `body` `TRIES` times, one after the other; the answers (or failures) in order. */
async function postRepeatedly(body: Buffer, headers: Record<string, string>): Promise<string[]> {
  const outcomes: string[] = [];
  for (let i = 0; i < TRIES; i++) {
    try {
      const response = await fetch(`${url}/plants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      outcomes.push(`${response.status} ${await response.text()}`);
    } catch (error) {
      outcomes.push(`failed: ${String((error as Error).cause ?? error)}`);
    }
  }
  return outcomes;
}

describe('an answer sent before the body was read', () => {
  it(`reaches fetch every time: a 5 MiB body with a valid token → ${TRIES} × 413`, async () => {
    const outcomes = await postRepeatedly(Buffer.alloc(5 * MB, 'a'), {
      authorization: `Bearer ${token}`,
    });
    expect(outcomes).toEqual(
      Array(TRIES).fill('413 {"error":41301,"message":"Request body is larger than 65536 bytes"}'),
    );
  });

  it(`reaches fetch every time: a 5 MiB body without a credential → ${TRIES} × 401`, async () => {
    const outcomes = await postRepeatedly(Buffer.alloc(5 * MB, 'a'), {});
    expect(new Set(outcomes.map((outcome) => outcome.slice(0, 20)))).toEqual(
      new Set(['401 {"error":40101,"']),
    );
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
  // Before, Node sent `100 Continue` before any check: curl then uploaded a 2 MB body only to
  // get 413, or 401 without a token. Now the refusal comes first, and no body byte is sent.
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
  it('gets 405 in the Error shape, then the connection closes (before: closed with no answer)', async () => {
    const answer = await sendRawBytes(url, 'CONNECT host:22 HTTP/1.1\r\nHost: host:22\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toMatch(
      /\r\n\r\n\{"error":40501,"message":"CONNECT is not allowed: this server is not a proxy \(asked for host:22\)"\}$/,
    );
  });
});
