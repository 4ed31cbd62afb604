import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { maskDatabaseUrl, openStore, parseDatabaseUrl } from '../../src/store/open-store.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { freePort } from '../support/free-port.ts';
import { createTestSchema } from '../support/postgres.ts';

describe('parseDatabaseUrl', () => {
  it.each([
    ['data/plants.db', 'data/plants.db'],
    ['./data/plants.db', './data/plants.db'],
    ['/var/lib/plants.db', '/var/lib/plants.db'],
    ['plants.db', 'plants.db'],
    ['C:\\data\\plants.db', 'C:\\data\\plants.db'],
    ['file:./data/plants.db', './data/plants.db'],
    ['file:data/plants.db', 'data/plants.db'],
    ['file:/var/lib/plants.db', '/var/lib/plants.db'],
    ['file:///var/lib/plants.db', '/var/lib/plants.db'],
    ['FILE:///var/lib/plants.db', '/var/lib/plants.db'],
    ['file:///var/lib/my%20plants.db', '/var/lib/my plants.db'],
    ['file://localhost/var/lib/plants.db', '/var/lib/plants.db'],
  ])('reads %j as the SQLite file %j', (url, filename) => {
    expect(parseDatabaseUrl(url)).toEqual({ kind: 'sqlite', filename });
  });

  it.each([
    'postgres://user:secret@db:5432/plants',
    'postgresql://db/plants?sslmode=require',
    'POSTGRES://db/plants',
  ])('recognises %j as PostgreSQL, keeping the URL as given', (url) => {
    expect(parseDatabaseUrl(url)).toEqual({ kind: 'postgres', url });
  });

  it.each([
    ['', /it is empty/],
    ['   ', /it is empty/],
    ['mysql://db/plants', /scheme "mysql:" is not supported/],
    ['sqlite:plants.db', /scheme "sqlite:" is not supported/],
    ['file:', /names no file/],
    ['file:plants.db?mode=ro', /query strings/],
    ['file://remote-host/plants.db', /Invalid database URL/],
    ['file:bad%zzname.db', /Invalid database URL/],
  ])('rejects %j', (url, reason) => {
    expect(() => parseDatabaseUrl(url)).toThrow(reason);
  });

  it('masks credentials of an unsupported URL in its error', () => {
    expect(() => parseDatabaseUrl('mysql://admin:hunter2@db/plants')).toThrow(
      'Invalid database URL "mysql://***@db/plants"',
    );
    expect(() => parseDatabaseUrl('mysql://admin:hunter2@db/plants')).not.toThrow(/hunter2/);
  });

  it('names the accepted forms in its error', () => {
    expect(() => parseDatabaseUrl('redis://cache')).toThrow(
      /file path .* file: URL .* postgres:\/\/ \/ postgresql:\/\/ URL/,
    );
  });
});

describe('openStore', () => {
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-open-store-'));
  });

  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('opens a SQLite store from an absolute path, passing the options on', async () => {
    const filename = path.join(dir, 'plants.db');
    const store = await openStore(filename, {
      durability: 'normal',
      sqlite: { busyTimeoutMs: 1234 },
    });
    try {
      expect(store).toBeInstanceOf(SqliteStore);
      expect((store as SqliteStore).settings()).toMatchObject({
        synchronous: 1,
        busyTimeoutMs: 1234,
      });
      expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
    } finally {
      await store.close();
    }
    expect(fs.existsSync(filename)).toBe(true);
  });

  it('opens the same file through file:///absolute and file:relative URLs', async () => {
    const filename = path.join(dir, 'sub', 'plants.db');
    const first = await openStore(pathToFileURL(filename).href);
    await first.create({ id: 2n, name: 'Moss', tag: 'ground' });
    await first.close();

    const relative = path.relative(process.cwd(), filename);
    const second = await openStore(`file:${relative}`);
    try {
      expect(await second.create({ id: 2n, name: 'Moss', tag: 'ground' })).toBe('replayed');
    } finally {
      await second.close();
    }
  });

  it('opens a PostgreSQL store for postgres:// and postgresql:// URLs, passing the options on', async () => {
    const schema = await createTestSchema(inject('postgresAdminUrl'));
    try {
      for (const url of [schema.url, schema.url.replace(/^postgres:/, 'postgresql:')]) {
        const store = await openStore(url, {
          durability: 'normal',
          postgres: { poolMax: 3, connectTimeoutMs: 1500, statementTimeoutMs: 2500 },
        });
        try {
          expect(store).toBeInstanceOf(PostgresStore);
          expect((store as PostgresStore).settings()).toEqual({
            poolMax: 3,
            connectTimeoutMs: 1500,
            statementTimeoutMs: 2500,
            queryTimeoutMs: 4000,
            synchronousCommit: 'off',
          });
          const outcome = await store.create({ id: 1n, name: 'Fern' });
          expect(outcome).toBe(url === schema.url ? 'created' : 'replayed');
        } finally {
          await store.close();
        }
      }
    } finally {
      await schema.drop();
    }
  });

  it('fails to open an unreachable PostgreSQL at once when told not to wait, masking the password', async () => {
    const url = `postgres://app:hunter2@127.0.0.1:${await freePort()}/plants`;
    const error = await openStore(url, { postgres: { startupWaitMs: 0 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toContain(
      'Cannot open the PostgreSQL store at postgres://app:***@127.0.0.1:',
    );
    expect(String(error)).toMatch(/ECONNREFUSED/);
    expect(String(error)).not.toContain('hunter2');
  });

  it('rejects an unsupported URL', async () => {
    await expect(openStore('mongodb://db/plants')).rejects.toThrow(/Invalid database URL/);
  });
});

describe('maskDatabaseUrl', () => {
  it.each([
    ['postgres://app:hunter2@db:5432/plants', 'postgres://app:***@db:5432/plants'],
    [
      'postgresql://app:p%40ss@db/plants?sslmode=require',
      'postgresql://app:***@db/plants?sslmode=require',
    ],
    ['postgres://app@db/plants', 'postgres://app@db/plants'],
    ['./data/plants.db', './data/plants.db'],
  ])('shows %j as %j', (url, shown) => {
    expect(maskDatabaseUrl(url)).toBe(shown);
  });
});
