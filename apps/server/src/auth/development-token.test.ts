import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, parseDatabase, StartupError } from '../config.ts';
import { developmentTokenPath, loadDevelopmentToken } from './development-token.ts';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-dev-token-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('developmentTokenPath', () => {
  it('puts the token in the data directory: next to the SQLite file, ./data for PostgreSQL', () => {
    expect(developmentTokenPath(parseDatabase('./data/plants.db'))).toBe(join('data', 'dev-token'));
    expect(developmentTokenPath(parseDatabase('file:///var/lib/plant-store/plants.db'))).toBe(
      '/var/lib/plant-store/dev-token',
    );
    expect(developmentTokenPath(parseDatabase('plants.db'))).toBe('dev-token');
    expect(developmentTokenPath(parseDatabase('postgres://app@db/plants'))).toBe(
      join('data', 'dev-token'),
    );
  });
});

describe('loadDevelopmentToken', () => {
  it('makes a token once (mode 0600, folder created) and returns the same one afterwards', async () => {
    const file = join(folder, 'nested', 'data', 'dev-token');
    const first = await loadDevelopmentToken(file);
    expect(first).toMatchObject({ file, created: true });
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`${first.token}\n`);
    const second = await loadDevelopmentToken(file);
    expect(second).toEqual({ token: first.token, file, created: false });
  });

  it('gives each data directory its own token', async () => {
    const a = await loadDevelopmentToken(join(folder, 'a', 'dev-token'));
    const b = await loadDevelopmentToken(join(folder, 'b', 'dev-token'));
    expect(a.token).not.toBe(b.token);
  });

  it('narrows a token file that others can read to 0600', async () => {
    const file = join(folder, 'loose-token');
    const token = 'x'.repeat(43);
    writeFileSync(file, `${token}\n`, { mode: 0o644 });
    expect((await loadDevelopmentToken(file)).token).toBe(token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a file that holds no token, saying to delete it, and leaves it as it was', async () => {
    const file = join(folder, 'broken-token');
    writeFileSync(file, 'not a token\n');
    await expect(loadDevelopmentToken(file)).rejects.toThrow(ConfigError);
    await expect(loadDevelopmentToken(file)).rejects.toThrow(/broken-token.*delete it/);
    expect(readFileSync(file, 'utf8')).toBe('not a token\n');
  });

  it('refuses a data directory it cannot use in one line naming the directory, why and what to do', async () => {
    const file = join(folder, 'a-file');
    writeFileSync(file, '');
    const refusal = loadDevelopmentToken(join(file, 'data', 'dev-token'));
    await expect(refusal).rejects.toThrow(StartupError);
    await expect(refusal).rejects.toThrow(
      `cannot use the data directory ${join(file, 'data')} (of DATABASE_URL; the development token is kept there): ENOTDIR: not a directory, mkdir '${join(file, 'data')}'; set DATABASE_URL to a file in a directory this user can write, or set PLANT_STORE_TOKENS`,
    );
  });
});
