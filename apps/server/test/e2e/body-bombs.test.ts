import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import { ERROR_MESSAGES } from '@plant-store/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config.ts';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { rawExchange as exchange, type RawRequest } from '../security/exchange.ts';
import { OpenApiResponseValidator } from '../support/openapi-validator.ts';
import {
  type ServerInTempFolder,
  type SpawnedServer,
  spawnFloodableServer,
} from '../support/spawn-server.ts';

// 10 MB bodies and compression bombs against a real server process (its own memory, measured
// from /proc, so the test's own buffers do not count): each is a 413 in the Error shape, the
// server's peak memory stays bounded, and nothing is stored.

const MB = 1024 * 1024;
/** The bound on the server's peak resident memory growth while the bombs go off. */
const PEAK_GROWTH_LIMIT_MB = 50;
const CONCURRENT = 16;

const validator = new OpenApiResponseValidator();
const token = `bombs-${randomBytes(16).toString('base64url')}`;
let databaseFile: string;
let spawned: ServerInTempFolder | undefined;
let server: SpawnedServer;
let url: string;

beforeAll(async () => {
  spawned = await spawnFloodableServer('plant-store-bombs-', token);
  ({ server, url, databaseFile } = spawned);
}, 60_000);
afterAll(() => spawned?.stop());

/** A line of /proc/<pid>/status in MiB (VmRSS: now; VmHWM: the peak). */
function memoryMb(field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
  if (kb === undefined) throw new Error(`no ${field} in /proc/${server.child.pid}/status`);
  return Number(kb) / 1024;
}

/** Starts the peak (VmHWM) afresh from the current resident size (Linux: clear_refs 5). */
function resetPeak(): void {
  writeFileSync(`/proc/${server.child.pid}/clear_refs`, '5');
}

function storedCount(): number {
  const db = openSqlite(databaseFile, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM plants').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const zeros = Buffer.alloc(10 * MB);
const gzip10 = gzipSync(zeros, { level: 9 });
// 100 gzip members back to back are one valid gzip stream: ~1 MB that inflates to 1,000 MB.
const gzip1000 = Buffer.concat(Array.from({ length: 100 }, () => gzip10));
const json10 = Buffer.from(`{"id": 1, "name": "${'x'.repeat(10 * MB)}"}`);

function bomb(body: Uint8Array, headers: Record<string, string> = {}, chunked = false): RawRequest {
  return {
    method: 'POST',
    path: '/plants',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body,
    chunked,
  };
}

const BOMBS: [string, RawRequest][] = [
  ['10 MB of JSON with Content-Length', bomb(json10)],
  ['10 MB of JSON, chunked (no length to refuse it by)', bomb(json10, {}, true)],
  [
    `10 MB of zeros as gzip (${Math.round(gzip10.length / 1024)} KB)`,
    bomb(gzip10, { 'content-encoding': 'gzip' }),
  ],
  [
    `1,000 MB of zeros as gzip (${Math.round(gzip1000.length / 1024)} KB)`,
    bomb(gzip1000, { 'content-encoding': 'gzip' }, true),
  ],
  [
    '10 MB of zeros as deflate',
    bomb(deflateSync(zeros, { level: 9 }), { 'content-encoding': 'deflate' }),
  ],
  [
    '10 MB of zeros as deflate, chunked',
    bomb(deflateSync(zeros, { level: 9 }), { 'content-encoding': 'deflate' }, true),
  ],
];
// A few KB that would make a brotli decoder take its 16 MB window (at quality 11 it is 27
// bytes, but slow to make): refused (415) unread.
const BROTLI_BOMB = bomb(
  brotliCompressSync(Buffer.alloc(20 * MB), {
    params: { [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_QUALITY]: 1 },
  }),
  { 'content-encoding': 'br' },
);

describe('body bombs', () => {
  it.each(BOMBS)(
    '%s → 413 in the Error shape',
    async (_label, request) => {
      const reply = await exchange(url, request);
      expect(reply.status).toBe(413);
      const body = JSON.parse(reply.text);
      expect(body).toEqual({
        error: 41301,
        message: ERROR_MESSAGES.payloadTooLarge(DEFAULTS.bodyLimitBytes),
      });
      validator.assertResponse('post', '/plants', 413, body);
    },
    30_000,
  );

  it('a brotli bomb → 415 unread', async () => {
    const reply = await exchange(url, BROTLI_BOMB);
    expect(reply.status).toBe(415);
    validator.assertResponse('post', '/plants', 415, JSON.parse(reply.text));
  });

  it(`keeps the server's peak memory within ${PEAK_GROWTH_LIMIT_MB} MB under ${CONCURRENT} concurrent bombs of each kind, and stores nothing`, async () => {
    // Warm up every path first (zlib, brotli, the 413 answer), then measure from here.
    for (const [label, request] of BOMBS) {
      expect((await exchange(url, request)).status, label).toBe(413);
    }
    expect((await exchange(url, BROTLI_BOMB)).status).toBe(415);
    resetPeak();
    const before = memoryMb('VmHWM');
    const all: [string, RawRequest, number][] = [
      ...BOMBS.map(([label, request]): [string, RawRequest, number] => [label, request, 413]),
      ['brotli', BROTLI_BOMB, 415],
    ];
    for (const [label, request, status] of all) {
      const replies = await Promise.all(
        Array.from({ length: CONCURRENT }, () => exchange(url, request)),
      );
      expect(
        replies.map((r) => r.status),
        label,
      ).toEqual(Array(CONCURRENT).fill(status));
    }
    const growth = memoryMb('VmHWM') - before;
    console.log(
      `body bombs: server peak RSS ${before.toFixed(1)} MB → +${growth.toFixed(1)} MB over ${all.length * CONCURRENT} bombs (${CONCURRENT} at a time); RSS now ${memoryMb('VmRSS').toFixed(1)} MB`,
    );
    // Reading a 10 MB body (or 1,000 MB inflated) 16 at a time would take 160 MB or more.
    expect(growth).toBeLessThan(PEAK_GROWTH_LIMIT_MB);
    expect(storedCount()).toBe(0);
    // And the server still works.
    const ok = await exchange(url, bomb(Buffer.from('{"id": 1, "name": "Fern"}')));
    expect(ok.status).toBe(200);
    expect(storedCount()).toBe(1);
  }, 120_000);
});
