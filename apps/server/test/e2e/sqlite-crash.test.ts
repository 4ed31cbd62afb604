import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plant } from '@plant-store/schema';
import { afterAll, describe, expect, it } from 'vitest';
import { integrityCheck } from '../support/integrity-check.ts';
import { readPlantRows } from '../support/read-plant-rows.ts';
import { NO_RATE_LIMITS, type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// Durability under a crash: a real server process takes concurrent creates, is killed with
// SIGKILL mid-load (no shutdown code runs), and is restarted on the same file. A 200 must mean
// the plant was committed: every acknowledged id is there with exactly its name and tag, the
// file is intact, and nothing is there that was never sent.

const folder = mkdtempSync(join(tmpdir(), 'plant-store-crash-'));
const token = 'crash-test-token-0123456789abcdef';
const started: SpawnedServer[] = [];
afterAll(() => {
  for (const server of started) server.child.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

/** Parallel clients; enough to keep several creates in every group commit. */
const CLIENTS = 32;
/** The server is killed once this many creates were acknowledged, however long that takes. */
const KILL_AFTER_ACKS = 400;
/** Above 2^53: an id rounded anywhere on the way would not match. */
const FIRST_ID = 2n ** 53n + 1n;

type SentPlant = Plant;

function start(env: Record<string, string>): SpawnedServer {
  const server = spawnServer({ PORT: '0', PLANT_STORE_TOKENS: token, ...NO_RATE_LIMITS, ...env });
  started.push(server);
  return server;
}

/** The plant sent for the n-th id: every name differs, and one in three has no tag. */
function plantFor(n: number): SentPlant {
  const name = `Plant ${n} ✿ "quoted"`;
  return n % 3 === 0 ? { name } : { name, tag: `tag-${n % 7}` };
}

function bodyOf(id: bigint, plant: SentPlant): string {
  return `{"id": ${id}, ${JSON.stringify(plant).slice(1)}`;
}

interface LoadResult {
  readonly sent: Map<bigint, SentPlant>;
  readonly acknowledged: Set<bigint>;
  /** Answers other than 200 (there should be none). */
  readonly unexpected: string[];
}

/**
 * Runs CLIENTS create loops against `url` and SIGKILLs `server` while they are running, once
 * KILL_AFTER_ACKS creates were acknowledged; the loops stop there, or when the server exits.
 */
async function createUntilKilled(url: string, server: SpawnedServer): Promise<LoadResult> {
  const sent = new Map<bigint, SentPlant>();
  const acknowledged = new Set<bigint>();
  const unexpected: string[] = [];
  let next = 0;
  let killed = false;
  let stopped = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    server.child.kill('SIGKILL');
  };
  void server.exited.then(() => {
    stopped = true;
  });
  const client = async () => {
    while (!killed && !stopped) {
      const n = next++;
      const id = FIRST_ID + BigInt(n);
      const plant = plantFor(n);
      sent.set(id, plant);
      try {
        const response = await fetch(`${url}/plants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: bodyOf(id, plant),
        });
        const text = await response.text();
        if (response.status === 200) {
          acknowledged.add(id);
          if (acknowledged.size >= KILL_AFTER_ACKS) kill();
        } else {
          unexpected.push(`${response.status} ${text}`);
        }
      } catch {
        // The server died with this request in flight: it was sent, its outcome is unknown.
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return { sent, acknowledged, unexpected };
}

function storedRows(file: string): Map<bigint, SentPlant> {
  return new Map(readPlantRows(file).map(({ id, ...plant }) => [id, plant]));
}

describe.each(['full', 'normal'] as const)(
  'SQLite store, DURABILITY=%s, killed mid-load',
  (durability) => {
    it('keeps every acknowledged create exactly and nothing that was not sent', async () => {
      const file = join(folder, `${durability}.db`);
      const env = { DATABASE_URL: file, DURABILITY: durability };
      const first = start(env);
      const result = await createUntilKilled(await first.ready, first);
      expect(await first.exited).toBe('SIGKILL');
      expect(result.unexpected).toEqual([]);
      // The kill happened under load, once KILL_AFTER_ACKS creates were acknowledged (not a
      // server that died by itself). Whether a request was cut off is luck: a group commit
      // answers a whole batch at once, so at the kill every answer may already be on its way.
      // The checks below hold either way.
      expect(result.acknowledged.size).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);

      // The restarted server recovers the file (WAL replay) and sees the acknowledged plants.
      const second = start(env);
      const url = await second.ready;
      const [someId] = result.acknowledged;
      if (someId === undefined) throw new Error('no acknowledged create');
      const some = result.sent.get(someId) as SentPlant;
      const replay = await fetch(`${url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: bodyOf(someId, { ...some, name: `${some.name} (changed)` }),
      });
      expect(replay.status, 'the id is taken after the restart').toBe(409);
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);

      expect(integrityCheck(file)).toEqual([{ integrity_check: 'ok' }]);
      const stored = storedRows(file);
      const lost = [...result.acknowledged].filter((id) => !stored.has(id));
      expect(lost, 'acknowledged but not stored').toEqual([]);
      for (const id of result.acknowledged) {
        expect(stored.get(id), `plant ${id}`).toEqual(result.sent.get(id));
      }
      // Stored but not acknowledged is allowed (committed, then killed before the answer left),
      // but only for plants that were sent, exactly as sent.
      for (const [id, plant] of stored) {
        expect(result.sent.get(id), `stored plant ${id} was sent`).toEqual(plant);
      }
    }, 30_000);
  },
);
