import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
