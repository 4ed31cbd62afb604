import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIELD_LIST } from '@plant-store/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limiterPoints, storedPlants } from './sqlite-commit.ts';
import { PeerWork, tokenChecksum } from './work.ts';

// A token in the server's managed shape (`pst_`, 43 characters, a CRC-32 checksum).
const TOKEN_BODY = `pst_${'a'.repeat(43)}`;
const TOKEN = `${TOKEN_BODY}${tokenChecksum(TOKEN_BODY)}`;
const LIMIT = 1024;

/**
 * The checks every peer passes over real HTTP on 127.0.0.1 with a real SQLite file (a peer that
 * answered wrongly would make the bench's ratios lie): 200 and the row stored exactly, the
 * Error shape for 400/401/404/409/413/415, nothing stored for a refusal, one log line each.
 *
 * @example
 * describePeer('koa', createKoaPeer);
 */
export function describePeer(
  name: string,
  create: (work: PeerWork) => Server | Promise<Server>,
): void {
  describe(`the ${name} peer`, () => {
    const folder = mkdtempSync(join(tmpdir(), `plant-store-bench-${name}-`));
    const file = join(folder, 'plants.db');
    const lines: string[] = [];
    let work: PeerWork;
    let server: Server;
    let url: string;

    beforeAll(async () => {
      work = new PeerWork({
        databaseFile: file,
        tokens: [TOKEN],
        bodyLimitBytes: LIMIT,
        ratePerSecond: 1000,
        burst: 1000,
        logLevel: 'info',
        log: { write: (line: string) => lines.push(line) },
      });
      server = await create(work);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeIdleConnections();
      });
      work.close();
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
    const expectError = async (response: Response, status: number) => {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as { error: unknown; message: unknown };
      expect(Math.floor(Number(body.error) / 100)).toBe(status);
      expect(body.message).toEqual(expect.any(String));
    };

    it('creates plants durably and exactly, with the headers and one log line each', async () => {
      const fern = await post('{"id": 1, "name": "Fern", "tag": "shade"}', {
        'x-request-id': 'r-1',
      });
      expect(fern.status).toBe(200);
      expect(await fern.json()).toEqual({ name: 'Fern', tag: 'shade' });
      expect(fern.headers.get('x-request-id')).toBe('r-1');
      expect(fern.headers.get('x-content-type-options')).toBe('nosniff');
      expect(fern.headers.get('x-ratelimit-limit')).toBe('1000');
      const edges = await Promise.all([
        post('{"id": 9007199254740993, "name": "Big"}'),
        post('{"id": 9223372036854775807, "name": "Max"}'),
        post('{"id": -9223372036854775808, "name": "Min"}'),
        post(`{"id": 2, "name": "${'🌿'.repeat(200)}", "tag": "${'x'.repeat(100)}"}`),
      ]);
      expect(edges.map((response) => response.status)).toEqual([200, 200, 200, 200]);
      expect(storedPlants(file)).toEqual([
        { id: -9223372036854775808n, name: 'Min' },
        { id: 1n, name: 'Fern', tag: 'shade' },
        { id: 2n, name: '🌿'.repeat(200), tag: 'x'.repeat(100) },
        { id: 9007199254740993n, name: 'Big' },
        { id: 9223372036854775807n, name: 'Max' },
      ]);
      const first = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
      expect(first).toMatchObject({
        requestId: 'r-1',
        method: 'POST',
        route: '/plants',
        status: 200,
        msg: 'request',
      });
      expect(first.consumer).toBe('env#1');
      expect(lines.length).toBe(5);
      // Counted as the server counts on SQLite: in the database's side file.
      expect(limiterPoints(`${file}-limits`, 'rate', 'rate:env#1')).toBe(5);
    });

    it('answers 400 for every broken NewPlant and stores nothing', async () => {
      const before = storedPlants(file).length;
      const broken = [
        '{"id": 10, "name": ',
        '',
        '[1]',
        '{"id": 10, "name": "x", "wheels": 4}',
        '{"id": 10}',
        '{"id": 10, "name": ""}',
        `{"id": 10, "name": "${'x'.repeat(201)}"}`,
        '{"id": 10, "name": "x", "tag": null}',
        '{"id": 10, "name": "a\\u0007b"}',
        '{"id": "10", "name": "x"}',
        '{"id": 10.5, "name": "x"}',
        '{"id": 9223372036854775808, "name": "x"}',
        '{"id": -9223372036854775809, "name": "x"}',
        '{"name": "x"}',
      ];
      for (const body of broken) {
        const response = await post(body);
        expect({ body, status: response.status }).toEqual({ body, status: 400 });
        await expectError(response, 400);
      }
      expect(storedPlants(file).length).toBe(before);
    });

    it('answers 401, 409, 413, 415 and 404 in the Error shape and stores nothing', async () => {
      const before = storedPlants(file).length;
      for (const authorization of [
        '',
        'Bearer wrong-token-0123456789abcdef',
        `Bearer ${TOKEN_BODY}AAAAAA`,
        `Basic ${TOKEN}`,
      ]) {
        await expectError(await post('{"id": 20, "name": "x"}', { authorization }), 401);
      }
      await expectError(await post('{"id": 1, "name": "Again"}'), 409);
      await expectError(await post(`{"id": 30, "name": "${'x'.repeat(LIMIT)}"}`), 413);
      await expectError(
        await post('{"id": 31, "name": "x"}', { 'content-type': 'text/plain' }),
        415,
      );
      await expectError(await fetch(`${url}/other`), 404);
      expect(storedPlants(file).length).toBe(before);
    });

    it("stores and answers every field of the contract's Plant", async () => {
      const sample = {
        string: (name: string) => `${name} 40`,
        integer: () => 40,
        boolean: () => true,
      };
      const plant = Object.fromEntries(
        FIELD_LIST.map((field) => [field.name, sample[field.type](field.name)]),
      );
      const response = await post(JSON.stringify({ id: 40, ...plant }));
      expect(response.status).toBe(200);
      expect(await response.json(), 'the peer must answer every field (plantOf)').toEqual(plant);
      expect(
        storedPlants(file).find((row) => row.id === 40n),
        'the peer must store every field (sqlite-commit.ts takes its columns from PLANT_FIELDS)',
      ).toEqual({ id: 40n, ...plant });
    });
  });
}
