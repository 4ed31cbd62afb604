import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { digestToken, TOKEN_CACHE_TTL_MS } from '../../src/auth/token-registry.ts';
import { createTestSchema, type TestSchema } from '../support/postgres.ts';
import { runCliInProcess, runCliProcess } from '../support/run-cli.ts';
import { type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// The `plant-store` tool and real server processes on one database. The tool runs in this
// process (the same runCli the binary calls) except in the smoke test, which runs each
// command once as a process.

const folder = mkdtempSync(join(tmpdir(), 'plant-store-cli-'));
const ENV_TOKEN = 'cli-test-env-token-0123456789';
const started: SpawnedServer[] = [];
const schemas: TestSchema[] = [];
afterAll(async () => {
  for (const server of started) server.child.kill('SIGKILL');
  await Promise.all(started.map((server) => server.exited));
  rmSync(folder, { recursive: true, force: true });
  for (const schema of schemas) await schema.drop();
});

// The tool runs as an operator would in production: no PLANT_STORE_TOKENS at all.
const cli = (databaseUrl: string, ...args: string[]) =>
  runCliInProcess(args, { DATABASE_URL: databaseUrl, NODE_ENV: 'production' });

const post = (url: string, token: string, id: number, name = `Plant ${id}`) =>
  fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name }),
  });

async function createToken(databaseUrl: string, ...args: string[]): Promise<string> {
  const run = await cli(databaseUrl, 'tokens', 'create', ...args);
  expect(run.status, run.stderr).toBe(0);
  const lines = run.stdout.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  const token = lines[0] ?? '';
  expect(token).toMatch(/^pst_[A-Za-z0-9_-]{49}$/);
  expect(run.stderr).toBe(''); // a script's stderr is no terminal: the token alone, no note
  return token;
}

async function startServer(databaseUrl: string): Promise<{ url: string; server: SpawnedServer }> {
  const server = spawnServer({
    PORT: '0',
    DATABASE_URL: databaseUrl,
    PLANT_STORE_TOKENS: ENV_TOKEN,
    LOG_LEVEL: 'info',
  });
  started.push(server);
  return { url: await server.ready, server };
}

/** Whether a response is the RFC 6750 refusal of a sent credential. */
async function isInvalidToken(response: Response): Promise<boolean> {
  const body = (await response.json()) as { error: number };
  return (
    response.status === 401 &&
    body.error === 40101 &&
    /error="invalid_token"/.test(response.headers.get('www-authenticate') ?? '')
  );
}

/** A fresh database per test: a SQLite file, or a schema on the test PostgreSQL server. */
const BACKENDS: [string, (name: string) => Promise<string>][] = [
  ['SQLite', async (name) => join(folder, `${name}.db`)],
  [
    'PostgreSQL',
    async () => {
      const schema = await createTestSchema(inject('postgresAdminUrl'), 'cli_test');
      schemas.push(schema);
      return schema.url;
    },
  ],
];

describe.each(BACKENDS)('plant-store tokens on %s, end to end', (_, database) => {
  it('creates a token the server accepts and logs by name, then revokes it', async () => {
    const db = await database('lifecycle');
    // Before the server ever ran: the tool creates and migrates the database.
    const token = await createToken(db, '--name', 'acme');
    const { url, server } = await startServer(db);

    const accepted = await post(url, token, 1);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ name: 'Plant 1' });
    // The configured token keeps working next to the managed ones.
    expect((await post(url, ENV_TOKEN, 2)).status).toBe(200);
    await expect.poll(() => server.output()).toMatch(/"consumer":"acme"/);
    await expect.poll(() => server.output()).toMatch(/"consumer":"env#1"/);
    expect(server.output()).not.toContain(token);
    expect(server.output()).not.toContain(digestToken(token));

    const revoke = await cli(db, 'tokens', 'revoke', 'acme');
    expect(revoke.status, revoke.stderr).toBe(0);
    expect(revoke.stdout).toMatch(/^Revoked token 1 "acme"/);
    // Refused once the server's cache entry lapses (TTL): polled, the wait bounded only by the
    // test's own budget (a busy machine), not asserted.
    await expect
      .poll(async () => isInvalidToken(await post(url, token, 3)), {
        timeout: 10 * TOKEN_CACHE_TTL_MS,
        interval: 200,
      })
      .toBe(true);
    // A refused request stores nothing: its id is still free for another name.
    expect(await isInvalidToken(await post(url, token, 100, 'Refused'))).toBe(true);
    expect((await post(url, ENV_TOKEN, 100, 'Another')).status).toBe(200);

    // The name is free again once its token is revoked.
    const again = await createToken(db, '--name', 'acme');
    expect((await post(url, again, 4)).status).toBe(200);
    // The list shows both, by id and name, never a token or its digest.
    const list = await cli(db, 'tokens', 'list');
    expect(list.status).toBe(0);
    expect(list.stdout).toMatch(/\n1\s+acme\s+revoked\s+\S+Z\s+never\s+\S+Z\n2\s+acme\s+active\s/);
    for (const secret of [token, again]) {
      expect(list.stdout + list.stderr).not.toContain(secret);
      expect(list.stdout + list.stderr).not.toContain(digestToken(secret));
    }
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 60_000);

  it('refuses an expired token, a checksum typo and an unknown token', async () => {
    const db = await database('expiry');
    const { url, server } = await startServer(db);
    // A token with an expiry is accepted while it lasts.
    const lasting = await createToken(db, '--name', 'lasting', '--expires', '30d');
    expect((await post(url, lasting, 1)).status).toBe(200);
    // One that expires is refused from then on: polled, the wait bounded only by the test's
    // own budget (a busy machine), not raced against its lifetime.
    const shortLived = await createToken(db, '--name', 'short', '--expires', '1s');
    await expect
      .poll(async () => isInvalidToken(await post(url, shortLived, 2, 'Short')), {
        timeout: 60_000,
        interval: 250,
      })
      .toBe(true);
    expect((await post(url, lasting, 3)).status).toBe(200);

    const at = 20;
    const typo = `${lasting.slice(0, at)}${lasting[at] === 'x' ? 'y' : 'x'}${lasting.slice(at + 1)}`;
    expect(await isInvalidToken(await post(url, typo, 5))).toBe(true);
    expect(await isInvalidToken(await post(url, `pst_${'A'.repeat(49)}`, 5))).toBe(true);
    expect(await isInvalidToken(await post(url, lasting.slice(0, -1), 5))).toBe(true);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 60_000);
});

describe('the plant-store command as a process', () => {
  it('creates, lists and revokes a token (one run of each command), exiting 0', async () => {
    const env = { DATABASE_URL: join(folder, 'smoke.db'), NODE_ENV: 'production' };
    const create = await runCliProcess(['tokens', 'create', '--name', 'smoke'], env);
    expect(create.status, create.stderr).toBe(0);
    const token = create.stdout.trim();
    expect(token).toMatch(/^pst_[A-Za-z0-9_-]{49}$/);
    // Not at a terminal: the token alone on stdout, nothing on stderr (scripts capture it).
    expect(create.stdout).toBe(`${token}\n`);
    expect(create.stderr).toBe('');
    const list = await runCliProcess(['tokens', 'list'], env);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/\n1\s+smoke\s+active\s/);
    expect(list.stdout + list.stderr).not.toContain(token);
    const revoke = await runCliProcess(['tokens', 'revoke', 'smoke'], env);
    expect(revoke.status, revoke.stderr).toBe(0);
    expect(revoke.stdout).toMatch(/^Revoked token 1 "smoke"/);
  }, 60_000);
});
