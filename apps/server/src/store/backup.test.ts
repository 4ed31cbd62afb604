import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readPlantRows } from '../../test/support/read-plant-rows.ts';
import { backupSqlite, checkBackup } from './backup.ts';
import { openSqlite } from './sqlite/driver.ts';
import { MIGRATIONS } from './sqlite/migrations.ts';
import { openDatabase } from './sqlite/open-database.ts';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-backup-unit-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('backupSqlite', () => {
  it('copies every committed plant, WAL included, into a new 0600 file; the source stays open', async () => {
    const source = join(folder, 'plants.db');
    const db = openDatabase(source);
    const insert = db.prepare('INSERT INTO plants (id, name, tag) VALUES (?, ?, ?)');
    for (let n = 1n; n <= 50n; n++) insert.run(2n ** 62n + n, `Plant ${n}`, n % 2n ? 'even' : null);
    const target = join(folder, 'copy.db');
    const copied = await backupSqlite(source, target);
    insert.run(1n, 'after the backup', null);
    expect(copied).toMatchObject({ schemaVersion: MIGRATIONS.length, plants: 50 });
    expect(copied.pages).toBeGreaterThan(1);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readPlantRows(target)).toEqual(readPlantRows(source).filter((row) => row.id !== 1n));
    db.close();
  });

  it('finishes on a database of many pages that another connection writes to all along', async () => {
    const source = join(folder, 'busy.db');
    const db = openDatabase(source);
    const insert = db.prepare('INSERT INTO plants (id, name) VALUES (?, ?)');
    db.transaction(() => {
      for (let n = 1; n <= 3000; n++) insert.run(n, `Plant ${n} ${'x'.repeat(150)}`);
    })();
    // A write between every two turns of the event loop, as a busy server's would be.
    let next = 3001;
    let writing = true;
    const write = () => {
      if (!writing) return;
      insert.run(next++, 'written during the backup');
      setImmediate(write);
    };
    setImmediate(write);
    const copied = await backupSqlite(source, join(folder, 'busy-copy.db'));
    writing = false;
    expect(copied.pages).toBeGreaterThan(100); // more than one of better-sqlite3's default steps
    const rows = readPlantRows(join(folder, 'busy-copy.db'));
    expect(rows.length).toBeGreaterThanOrEqual(3000);
    expect(rows.length).toBeLessThan(next);
    db.close();
  });

  it('refuses a target that exists, and a source that does not', async () => {
    await expect(backupSqlite(join(folder, 'plants.db'), join(folder, 'copy.db'))).rejects.toThrow(
      `${join(folder, 'copy.db')} exists: a backup goes to a new file`,
    );
    await expect(
      backupSqlite(join(folder, 'none.db'), join(folder, 'none-copy.db')),
    ).rejects.toThrow();
    expect(() => statSync(join(folder, 'none-copy.db'))).toThrow(/ENOENT/);
  });

  it('leaves only the target; removes the partial files of a dead backup, not a running one', async () => {
    const dir = join(folder, 'leftovers');
    mkdirSync(dir);
    const target = join(dir, 'copy.db');
    const dead = `${target}.partial-${2 ** 22 + 1}`; // above any pid Linux hands out
    const alive = join(dir, `other.db.partial-${process.ppid}`);
    for (const file of [dead, `${dead}-journal`, alive, join(dir, 'notes.txt')]) {
      writeFileSync(file, 'x');
    }
    await backupSqlite(join(folder, 'plants.db'), target);
    expect(readdirSync(dir).sort()).toEqual([
      'copy.db',
      'notes.txt',
      `other.db.partial-${process.ppid}`,
    ]);
    expect(checkBackup(target)).toMatchObject({ schemaVersion: MIGRATIONS.length, plants: 51 });
  });
});

describe('checkBackup', () => {
  it('refuses an empty file, a file with a journal beside it, a damaged one, an unknown schema', () => {
    const dir = join(folder, 'bad');
    mkdirSync(dir);
    const empty = join(dir, 'empty.db');
    writeFileSync(empty, '');
    expect(() => checkBackup(empty)).toThrow(
      `${empty} is not a usable backup: schema version 0; this release knows 1 to ${MIGRATIONS.length}`,
    );
    const copy = join(folder, 'copy.db');
    const journal = join(dir, 'journal.db');
    writeFileSync(journal, readFileSync(copy));
    writeFileSync(`${journal}-journal`, 'x');
    expect(() => checkBackup(journal)).toThrow(/-journal beside it \(an unfinished copy\)/);
    const damaged = join(dir, 'damaged.db');
    const bytes = readFileSync(copy);
    bytes.fill(0x55, 4096, bytes.length); // every page after the first
    writeFileSync(damaged, bytes);
    expect(() => checkBackup(damaged)).toThrow(`${damaged} is not a usable backup:`);
    const newer = join(dir, 'newer.db');
    writeFileSync(newer, readFileSync(copy));
    const db = openSqlite(newer);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => checkBackup(newer)).toThrow(/schema version \d+; this release knows/);
    expect(() => checkBackup(join(dir, 'none.db'))).toThrow(/not a usable backup/);
    expect(readdirSync(dir).sort()).toEqual([
      'damaged.db',
      'empty.db',
      'journal.db',
      'journal.db-journal',
      'newer.db',
    ]);
  });
});
