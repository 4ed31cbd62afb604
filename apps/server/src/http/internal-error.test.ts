import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { afterAll, expect, it } from 'vitest';
import { parseDatabase } from '../config.ts';
import { startServer } from '../server.ts';
import { openSqlite } from '../store/sqlite/driver.ts';

// An unexpected failure (here: the plants table vanished under the running server) is a 500
// in the Error shape that reveals nothing, and is logged with its stack.

const folder = mkdtempSync(join(tmpdir(), 'plant-store-500-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

it('answers 500 with a bare Error body and logs the cause with its stack', async () => {
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  const token = 'internal-error-token-0123456789';
  const databaseFile = join(folder, 'plants.db');
  const running = await startServer(
    {
      port: 0,
      host: '127.0.0.1',
      database: parseDatabase(databaseFile),
      tokens: [token],
      bodyLimitBytes: 65536,
      durability: 'full',
    },
    pino({ level: 'info' }, stream),
  );
  const saboteur = openSqlite(databaseFile);
  saboteur.exec('DROP TABLE plants');
  saboteur.close();

  const response = await fetch(`${running.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{"id": 1, "name": "Fern"}',
  });
  expect(response.status).toBe(500);
  expect(await response.json()).toEqual({ error: 50001, message: 'Internal server error' });
  // fetch keeps its connection: closed here so the drain does not wait out its idle grace.
  running.server.closeIdleConnections();
  await running.close();

  const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const failure = logged.find((entry) => entry.msg === 'request failed');
  expect(failure?.level).toBe(50);
  expect(JSON.stringify(failure?.err)).toMatch(/no such table: plants/);
  expect((failure?.err as { stack?: string } | undefined)?.stack).toMatch(/\n\s+at /);
  expect(lines.join('\n')).not.toContain(token);
});
