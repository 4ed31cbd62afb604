import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { adminQuery, createTestSchema, grantSearch } from '../support/postgres.ts';

describe('the test PostgreSQL', () => {
  it('is a real PostgreSQL server that the global setup provides', async () => {
    const [row] = await adminQuery(inject('postgresAdminUrl'), 'SELECT version() AS version');
    expect(row?.version).toMatch(/^PostgreSQL \d+/);
  });

  it('gives each test a schema of its own, reachable through its URL, and drops it', async () => {
    const schema = await createTestSchema(inject('postgresAdminUrl'), 'plant_probe');
    expect(schema.name).toMatch(/^plant_probe_[0-9a-f]{12}$/);
    await adminQuery(schema.url, 'CREATE TABLE probe (x int)');
    const [row] = await adminQuery(
      inject('postgresAdminUrl'),
      `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = '${schema.name}'`,
    );
    expect(row).toEqual({ n: 1 });
    await schema.drop();
    const [after] = await adminQuery(
      inject('postgresAdminUrl'),
      `SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = '${schema.name}'`,
    );
    expect(after).toEqual({ n: 0 });
  });

  it('finds a free port', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    expect(port).toBeLessThan(65536);
  });
});

describe('grantSearch', () => {
  it('adds o+x to the folders that lack it, only those, and nothing else', async () => {
    const root = mkdtempSync(join(tmpdir(), 'plant-grant-'));
    try {
      const inner = join(root, 'a', 'b');
      mkdirSync(inner, { recursive: true, mode: 0o755 });
      execFileSync('chmod', ['700', root]);
      execFileSync('chmod', ['750', join(root, 'a')]);
      const changed = await grantSearch(inner);
      expect(changed).toEqual([join(root, 'a'), root]);
      expect(statSync(root).mode & 0o777).toBe(0o701);
      expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o751);
      expect(statSync(inner).mode & 0o777).toBe(0o755);
      expect(await grantSearch(inner)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
