import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, parseDatabaseUrl } from './open-store.ts';
import { SqliteStore } from './sqlite-store.ts';

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
    const store = await openStore(filename, { durability: 'normal' });
    try {
      expect(store).toBeInstanceOf(SqliteStore);
      expect((store as SqliteStore).settings().synchronous).toBe(1);
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
      expect(await second.get(2n)).toStrictEqual({ id: 2n, name: 'Moss', tag: 'ground' });
    } finally {
      await second.close();
    }
  });

  it('says PostgreSQL is not built yet', async () => {
    await expect(openStore('postgres://db/plants')).rejects.toThrow(
      'PostgreSQL support is not built yet',
    );
  });

  it('rejects an unsupported URL', async () => {
    await expect(openStore('mongodb://db/plants')).rejects.toThrow(/Invalid database URL/);
  });
});
