import { PassThrough } from 'node:stream';
import pino from 'pino';
import { expect, it } from 'vitest';
import { createTestApp } from '../../test/support/test-app.ts';
import { openSqlite } from '../store/sqlite/driver.ts';

// An unexpected failure (here: the plants table vanished under the running app) is a 500 in the
// Error shape that reveals nothing, and is logged with its stack.

it('answers 500 with a bare Error body and logs the cause with its stack', async () => {
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  const app = await createTestApp({ logger: pino({ level: 'info' }, stream) });
  try {
    const saboteur = openSqlite(app.databaseFile);
    saboteur.exec('DROP TABLE plants');
    saboteur.close();

    const response = await app.fetch('/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
      body: '{"id": 1, "name": "Fern"}',
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 50001, message: 'Internal server error' });
  } finally {
    await app.dispose();
  }

  const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const failure = logged.find((entry) => entry.msg === 'request failed');
  expect(failure?.level).toBe(50);
  expect(JSON.stringify(failure?.err)).toMatch(/no such table: plants/);
  expect((failure?.err as { stack?: string } | undefined)?.stack).toMatch(/\n\s+at /);
  expect(lines.join('\n')).not.toContain(app.token);
});
