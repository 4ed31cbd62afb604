import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BearerDigests } from './bearer.ts';
import type { PeerOptions, PeerServer } from './peer.ts';
import { openSqliteFile, SqliteGroupCommit } from './sqlite-group-commit.ts';

const TOKEN = 'peer-test-token-0123456789abcdef';
const LIMIT = 1024;

/**
 * The checks every benchmark peer must pass (a peer that answers wrongly would make the
 * benchmark's numbers lie): over real HTTP on 127.0.0.1 with a real SQLite file, a valid create
 * answers 200 with the Plant and is stored exactly; each broken rule answers its 4xx in the
 * Error shape and stores nothing.
 *
 * @example
 * describePeer('bare', createBareServer);
 */
export function describePeer(name: string, create: (options: PeerOptions) => PeerServer): void {
  describe(`the ${name} peer`, () => {
    const folder = mkdtempSync(join(tmpdir(), `plant-store-peer-${name}-`));
    const filename = join(folder, 'plants.db');
    let commit: SqliteGroupCommit;
    let server: PeerServer;
    let url: string;

    beforeAll(async () => {
      commit = new SqliteGroupCommit(filename);
      server = create({ commit, bearer: new BearerDigests([TOKEN]), bodyLimitBytes: LIMIT });
      url = await server.listen(0, '127.0.0.1');
    });
    afterAll(async () => {
      await server.close();
      commit.close();
      rmSync(folder, { recursive: true, force: true });
    });

    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${url}/plants`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          ...headers,
        },
        body,
      });
    const rows = () => {
      const db = openSqliteFile(filename, { readonly: true });
      try {
        db.defaultSafeIntegers(true);
        return db.prepare('SELECT id, name, tag FROM plants ORDER BY id').all();
      } finally {
        db.close();
      }
    };
    const expectError = async (response: Response, status: number) => {
      expect(response.status).toBe(status);
      const body = (await response.json()) as { error: unknown; message: unknown };
      expect(Math.floor(Number(body.error) / 100)).toBe(status);
      expect(typeof body.message).toBe('string');
    };

    it('creates plants durably and exactly, answering 200 with the Plant', async () => {
      const fern = await post('{"id": 1, "name": "Fern", "tag": "shade"}');
      expect(fern.status).toBe(200);
      expect(await fern.json()).toEqual({ name: 'Fern', tag: 'shade' });
      const big = await post('{"id": 9007199254740993, "name": "Big"}');
      expect(big.status).toBe(200);
      expect(await big.json()).toEqual({ name: 'Big' });
      const edges = await Promise.all([
        post('{"id": 9223372036854775807, "name": "Max"}'),
        post('{"id": -9223372036854775808, "name": "Min"}'),
        post(`{"id": 2, "name": "${'🌿'.repeat(200)}", "tag": "${'x'.repeat(100)}"}`),
      ]);
      expect(edges.map((response) => response.status)).toEqual([200, 200, 200]);
      expect(rows()).toEqual([
        { id: -9223372036854775808n, name: 'Min', tag: null },
        { id: 1n, name: 'Fern', tag: 'shade' },
        { id: 2n, name: '🌿'.repeat(200), tag: 'x'.repeat(100) },
        { id: 9007199254740993n, name: 'Big', tag: null },
        { id: 9223372036854775807n, name: 'Max', tag: null },
      ]);
    });

    it('answers 400 for every broken NewPlant rule and stores nothing', async () => {
      const before = rows().length;
      const broken = [
        '{"id": 10, "name": ',
        '',
        '[1]',
        '{"id": 10, "name": "x", "color": "green"}',
        '{"id": 10}',
        '{"id": 10, "name": ""}',
        `{"id": 10, "name": "${'x'.repeat(201)}"}`,
        `{"id": 10, "name": "${'🌿'.repeat(201)}"}`,
        `{"id": 10, "name": "x", "tag": "${'x'.repeat(101)}"}`,
        '{"id": 10, "name": "x", "tag": ""}',
        '{"id": 10, "name": "x", "tag": null}',
        '{"id": 10, "name": "a\\u0007b"}',
        '{"id": 10, "name": "a\\u0085b"}',
        '{"id": 10, "name": "a\\ud800b"}',
        '{"id": 10, "name": 7}',
        '{"id": "10", "name": "x"}',
        '{"id": 10.5, "name": "x"}',
        '{"id": 9223372036854775808, "name": "x"}',
        '{"id": -9223372036854775809, "name": "x"}',
        '{"id": 1e20, "name": "x"}',
        '{"name": "x"}',
      ];
      for (const body of broken) {
        const response = await post(body);
        expect({ body, status: response.status }).toEqual({ body, status: 400 });
        await expectError(response, 400);
      }
      expect(rows().length).toBe(before);
    });

    it('answers 401 without an accepted bearer token and stores nothing', async () => {
      const before = rows().length;
      const valid = '{"id": 20, "name": "x"}';
      for (const authorization of ['', 'Bearer wrong-token-0123456789abcdef', `Basic ${TOKEN}`]) {
        await expectError(await post(valid, { authorization }), 401);
      }
      expect(rows().length).toBe(before);
    });

    it('answers 409, 413, 415 and 404 in the Error shape', async () => {
      await expectError(await post('{"id": 1, "name": "Again"}'), 409);
      await expectError(await post(`{"id": 30, "name": "${'x'.repeat(LIMIT)}"}`), 413);
      await expectError(
        await post('{"id": 30, "name": "x"}', { 'content-type': 'text/plain' }),
        415,
      );
      await expectError(await fetch(`${url}/other`), 404);
      expect(rows().find((row) => (row as { id: bigint }).id === 30n)).toBeUndefined();
    });

    it('stores every concurrent create exactly once (group commit)', async () => {
      const before = rows().length;
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => post(`{"id": ${1000 + i}, "name": "n${i}"}`)),
      );
      expect(responses.every((response) => response.status === 200)).toBe(true);
      expect(rows().length).toBe(before + 50);
    });
  });
}
