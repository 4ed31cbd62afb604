import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { integrityCheck } from '../support/integrity-check.ts';
import { readPlantRows } from '../support/read-plant-rows.ts';
import { type CliRun, runCliProcess } from '../support/run-cli.ts';
import { NO_RATE_LIMITS, type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// docs/operations.md, "Backups, upgrades and rollbacks", step by step with real processes: a
// server takes creates from parallel clients while `plant-store backup` copies its database;
// the backup is restored into a fresh folder as the docs say and a new server starts on it:
// every plant acknowledged before the backup began is there, exactly. Then the rollback rule:
// a database an upgrade migrated past this code is refused in one line, and this release starts
// on the backup taken before the upgrade (rollback-previous-release.test.ts does it with the
// previous release's own build).

const folder = mkdtempSync(join(tmpdir(), 'plant-store-backup-'));
const token = 'backup-test-token-0123456789abcdef';
const live = join(folder, 'live', 'plants.db');
const backup = join(folder, 'plants-backup.db');
const restored = join(folder, 'restored', 'plants.db');
const started: SpawnedServer[] = [];
afterAll(async () => {
  for (const server of started) server.child.kill('SIGTERM');
  await Promise.all(started.map((server) => server.exited));
  rmSync(folder, { recursive: true, force: true });
});

/** Parallel create loops; enough to keep the store committing while the backup runs. */
const CLIENTS = 8;
/** Above 2^53: an id rounded anywhere on the way would not match. */
const FIRST_ID = 2n ** 53n + 1n;

function start(databaseFile: string): SpawnedServer {
  const server = spawnServer({
    PORT: '0',
    DATABASE_URL: databaseFile,
    PLANT_STORE_TOKENS: token,
    ...NO_RATE_LIMITS,
  });
  started.push(server);
  return server;
}

async function stop(server: SpawnedServer): Promise<void> {
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}

const nameOf = (id: bigint) => `Plant ${id}`;

function create(url: string, id: bigint): Promise<Response> {
  return fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: `{"id": ${id}, "name": ${JSON.stringify(nameOf(id))}}`,
  });
}

/** What happened around the backup, for the checks below. */
let ackedBeforeBackup: bigint[] = [];
let ackedInAll = 0;
let ackedDuringBackup = 0;
let backupRun: CliRun | undefined;
let backupMs = 0;

beforeAll(async () => {
  const server = start(live);
  const url = await server.ready;
  const acked: bigint[] = [];
  let next = 0n;
  let creating = true;
  const client = async () => {
    while (creating) {
      const id = FIRST_ID + next++;
      const response = await create(url, id);
      if (response.status !== 200) throw new Error(`create ${id}: ${response.status}`);
      await response.arrayBuffer();
      acked.push(id);
    }
  };
  const clients = Array.from({ length: CLIENTS }, client);
  // Some plants first, then the backup while the clients keep creating, then a few more.
  while (acked.length < 300) await new Promise((resolve) => setTimeout(resolve, 10));
  ackedBeforeBackup = [...acked];
  const began = performance.now();
  backupRun = await runCliProcess(['backup', backup], { DATABASE_URL: live });
  backupMs = performance.now() - began;
  ackedDuringBackup = acked.length - ackedBeforeBackup.length;
  await new Promise((resolve) => setTimeout(resolve, 100));
  creating = false;
  await Promise.all(clients);
  ackedInAll = acked.length;
  await stop(server);
});

describe('plant-store backup while the server takes creates', () => {
  it('writes a new file, mode 0600, and says what it copied', () => {
    expect(backupRun).toMatchObject({ status: 0, stderr: '' });
    expect(backupRun?.stdout).toMatch(
      new RegExp(
        `^Backed up ${live} \\(schema version ${MIGRATIONS.length}, \\d+ pages, \\d+ plants, quick_check ok\\) to ${backup}\\n$`,
      ),
    );
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    // Creates went on while it copied: the server was not stopped nor stalled.
    expect(ackedDuringBackup).toBeGreaterThan(0);
    expect(ackedInAll).toBeGreaterThan(ackedBeforeBackup.length);
    console.log(
      `backup: ${backupMs.toFixed(0)} ms (a CLI process); ${ackedBeforeBackup.length} plants acknowledged before it, ${ackedDuringBackup} while it ran, ${ackedInAll} in all`,
    );
  });

  it('refuses to overwrite a file, and names pg_dump for PostgreSQL', async () => {
    const again = await runCliProcess(['backup', backup], { DATABASE_URL: live });
    expect(again).toMatchObject({ status: 1, stdout: '' });
    expect(again.stderr).toBe(`plant-store: ${backup} exists: a backup goes to a new file\n`);
    const postgres = await runCliProcess(['backup', join(folder, 'pg.db')], {
      DATABASE_URL: 'postgres://plants@127.0.0.1:1/plants',
    });
    expect(postgres.status).toBe(1);
    expect(postgres.stderr).toContain('for PostgreSQL use pg_dump');
    expect(existsSync(join(folder, 'pg.db'))).toBe(false);
  });
});

describe('restored into a fresh folder, as docs/operations.md says', () => {
  it('starts a server on it, and every plant acknowledged before the backup is there, exactly', async () => {
    const checked = await runCliProcess(['backup', '--check', backup], {});
    expect(checked).toMatchObject({ status: 0, stderr: '' });
    expect(checked.stdout).toBe(
      `${backup}: quick_check ok, schema version ${MIGRATIONS.length}, ${readPlantRows(backup).length} plants\n`,
    );
    mkdirSync(join(folder, 'restored'), { mode: 0o700 });
    copyFileSync(backup, restored);
    expect(integrityCheck(restored)).toEqual([{ integrity_check: 'ok' }]);
    const server = start(restored);
    const url = await server.ready;
    const rows = new Map(readPlantRows(restored).map((row) => [row.id, row]));
    const missing = ackedBeforeBackup.filter((id) => rows.get(id)?.name !== nameOf(id));
    expect(missing).toEqual([]);
    // Nothing that was never sent, and nothing beyond what was acknowledged by the end.
    expect(rows.size).toBeGreaterThanOrEqual(ackedBeforeBackup.length);
    expect(rows.size).toBeLessThanOrEqual(ackedInAll);
    // The server answers from it: an acknowledged plant again is a replay (200), a new one a create.
    const first = ackedBeforeBackup[0] ?? 0n;
    expect((await create(url, first)).status).toBe(200);
    expect((await create(url, FIRST_ID - 1n)).status).toBe(200);
    await stop(server);
  });
});

describe('rolling back an upgrade', () => {
  it('a database migrated past this code is refused in one line; the backup taken before starts', async () => {
    // What an upgrade's migration does: a newer release changes the schema and records its
    // version (PRAGMA user_version); rolling the code back alone cannot read it.
    const upgraded = join(folder, 'upgraded', 'plants.db');
    mkdirSync(join(folder, 'upgraded'), { mode: 0o700 });
    copyFileSync(backup, upgraded);
    const db = openSqlite(upgraded);
    db.exec('ALTER TABLE plants ADD COLUMN watered_at TEXT');
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    const refused = start(upgraded);
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain(
      `The database schema is at version ${MIGRATIONS.length + 1}, but this server only knows versions up to ${MIGRATIONS.length}`,
    );
    // The rollback: stop, put the backup taken before the upgrade in place (no -wal/-shm of
    // the upgraded file next to it), start the previous release on it.
    rmSync(join(folder, 'upgraded'), { recursive: true });
    mkdirSync(join(folder, 'upgraded'), { mode: 0o700 });
    copyFileSync(backup, upgraded);
    const rolledBack = start(upgraded);
    await rolledBack.ready;
    const ids = new Set(readPlantRows(upgraded).map((row) => row.id));
    expect(ackedBeforeBackup.filter((id) => !ids.has(id))).toEqual([]);
    await stop(rolledBack);
  });
});
