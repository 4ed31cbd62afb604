import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBackup } from '../../src/store/backup.ts';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { openDatabase } from '../../src/store/sqlite/open-database.ts';
import { serverEntry } from '../support/server-entry.ts';
import { NO_RATE_LIMITS, type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// `plant-store backup` SIGKILLed at moments spread over its whole run (process start, the copy,
// the check, the fsyncs, the rename) of a database of 200,000 plants while 2 clients create:
// the target name never holds anything but a complete backup, and the next backup removes what
// the killed ones left and holds every plant acknowledged before it began. (Starting a server on
// a restored backup is backup-restore.test.ts's.)

const folder = mkdtempSync(join(tmpdir(), 'plant-store-backup-kill-'));
const live = join(folder, 'live', 'plants.db');
const backups = join(folder, 'backups');
const token = 'backup-kill-test-token-0123456789abcdef';
/** Enough that the copy and the check take most of a backup's run, not the process start. */
const ROWS = 200_000;
const TRIES = 20;
/** Two clients, each a create then a pause: commits all through each backup, at little CPU. */
const CLIENTS = 2;
const PAUSE_MS = 10;
const FIRST_ID = 2n ** 53n + 1n;
const started: SpawnedServer[] = [];
afterAll(async () => {
  for (const server of started) server.child.kill('SIGTERM');
  await Promise.all(started.map((server) => server.exited));
  rmSync(folder, { recursive: true, force: true });
});

function start(file: string): SpawnedServer {
  const server = spawnServer({
    PORT: '0',
    DATABASE_URL: file,
    PLANT_STORE_TOKENS: token,
    ...NO_RATE_LIMITS,
  });
  started.push(server);
  return server;
}

const create = (url: string, id: bigint, name = `Plant ${id}`) =>
  fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: `{"id": ${id}, "name": ${JSON.stringify(name)}}`,
  });

/** Runs `plant-store backup <target>`, SIGKILLed after `killAfterMs` unless it ended first. */
function backup(target: string, killAfterMs = Number.POSITIVE_INFINITY) {
  const child = spawn(process.execPath, [serverEntry('cli'), 'backup', target], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: live },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = Number.isFinite(killAfterMs)
    ? setTimeout(() => child.kill('SIGKILL'), killAfterMs)
    : undefined;
  return new Promise<{ code: number | null; signal: string | null; output: string }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    }),
  );
}

let url = '';
const acked: bigint[] = [];
let creating = true;
let clients: Promise<void>[] = [];

beforeAll(async () => {
  // The bulk plants in one transaction, then a server on the file.
  const db = openDatabase(live);
  const insert = db.prepare('INSERT INTO plants (id, name, tag) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let n = 1; n <= ROWS; n++) insert.run(n, `Bulk plant ${n}`, n % 3 === 0 ? 'bulk' : null);
  })();
  db.close();
  mkdirSync(backups, { mode: 0o700 });
  const server = start(live);
  url = await server.ready;
  let next = 0n;
  clients = Array.from({ length: CLIENTS }, async () => {
    while (creating) {
      const id = FIRST_ID + next++;
      const response = await create(url, id);
      if (response.status !== 200) throw new Error(`create ${id}: ${response.status}`);
      await response.arrayBuffer();
      acked.push(id);
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
  });
  while (acked.length < 20) await new Promise((resolve) => setTimeout(resolve, 10));
}, 120_000);

/** The client plants a file holds. */
function clientIds(file: string): Set<bigint> {
  const db = openSqlite(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT id FROM plants WHERE id >= ?').pluck().safeIntegers();
    return new Set(rows.all(FIRST_ID) as bigint[]);
  } finally {
    db.close();
  }
}

describe(`plant-store backup of ${ROWS.toLocaleString('en')} plants, SIGKILLed ${TRIES} times while clients create`, () => {
  it('never leaves at the target name anything but a complete backup; the next backup cleans up', async () => {
    // Two uninterrupted runs first (the first reads a cold file): how long a backup takes, the
    // faster one's time is what the kill moments spread over.
    let wholeMs = Number.POSITIVE_INFINITY;
    for (const name of ['timing-1.db', 'timing-2.db']) {
      const began = performance.now();
      const whole = await backup(join(backups, name));
      wholeMs = Math.min(wholeMs, performance.now() - began);
      expect(whole).toMatchObject({ code: 0 });
      expect(whole.output).toMatch(/, quick_check ok\) to /);
    }
    const lines: string[] = [];
    let complete = 0;
    for (let i = 0; i < TRIES; i++) {
      const target = join(backups, `try-${i}.db`);
      const ackedBefore = acked.slice();
      // One moment in each twentieth of the run, at a random place within it.
      const moment = Math.round((wholeMs * (i + Math.random())) / TRIES);
      const run = await backup(target, moment);
      const left = readdirSync(backups)
        .filter((name) => name.startsWith(`try-${i}.db`))
        .map(
          (name) =>
            `${name.slice(`try-${i}.db`.length) || 'target'} ${statSync(join(backups, name)).size} B`,
        );
      let verdict = 'nothing at the target name';
      if (existsSync(target)) {
        // There, it must be whole: checked, every plant acknowledged before it began.
        const checked = checkBackup(target);
        expect(checked.plants).toBeGreaterThanOrEqual(ROWS + ackedBefore.length);
        const ids = clientIds(target);
        expect(ackedBefore.filter((id) => !ids.has(id))).toEqual([]);
        verdict = `finished before the kill: a complete backup (${checked.plants} plants)`;
        complete += 1;
      }
      lines.push(
        `try ${i + 1}: killed at ${moment} ms (${run.signal ?? `exit ${run.code}`}): ${verdict}; left: ${left.join(', ') || 'nothing'}`,
      );
    }
    const final = join(backups, 'final.db');
    const ackedBeforeFinal = acked.slice();
    expect(await backup(final)).toMatchObject({ code: 0 });
    const remaining = readdirSync(backups).filter((name) => name.includes('.partial-'));
    console.log(
      `an uninterrupted backup: ${wholeMs.toFixed(0)} ms; ${complete} of ${TRIES} runs finished before their kill\n${lines.join('\n')}\nafter the next backup, partial files left: ${remaining.length}`,
    );
    expect(remaining).toEqual([]);

    // The backup after the killed ones is whole: checked, every plant acknowledged before it.
    expect(checkBackup(final).plants).toBeGreaterThanOrEqual(ROWS + ackedBeforeFinal.length);
    const ids = clientIds(final);
    expect(ackedBeforeFinal.filter((id) => !ids.has(id))).toEqual([]);
    creating = false;
    await Promise.all(clients);
  }, 600_000);
});
