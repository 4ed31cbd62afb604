import { afterEach, describe, expect, inject, it } from 'vitest';
import { generateToken } from '../../src/auth/token-format.ts';
import { digestToken, TokenRegistry } from '../../src/auth/token-registry.ts';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { firstToSettle } from '../support/first-to-settle.ts';
import { adminQuery, createTestSchema, type TestSchema } from '../support/postgres.ts';
import { runCliProcess } from '../support/run-cli.ts';
import { silentLogger } from '../support/silent-logger.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import { describeTokenStore } from '../support/token-store-contract.ts';
import { openTokenStore } from '../support/token-stores.ts';

describeTokenStore('PostgreSQL', async () => {
  const schema = await createTestSchema(inject('postgresAdminUrl'), 'tokens_test');
  const store = await openTokenStore(schema.url);
  return {
    store,
    async dispose() {
      await store.close();
      await schema.drop();
    },
  };
});

describe('PostgreSQL token store', () => {
  it('serves the verifier on a postgres URL', async () => {
    const schema = await createTestSchema(inject('postgresAdminUrl'), 'tokens_test');
    const store = await openTokenStore(schema.url);
    try {
      const token = `pst_${'a'.repeat(43)}`;
      await store.insert({
        name: 'acme',
        digest: digestToken(token),
        createdAt: new Date(),
        expiresAt: null,
      });
      expect((await store.list()).map((t) => t.name)).toEqual(['acme']);
      // A made-up token body fails its checksum: the registry never asks PostgreSQL.
      let lookups = 0;
      const counting = {
        findByDigest: (digest: string) => {
          lookups++;
          return store.findByDigest(digest);
        },
      };
      expect(await new TokenRegistry([], counting).authenticate(token)).toBeUndefined();
      expect(lookups).toBe(0);
    } finally {
      await store.close();
      await schema.drop();
    }
  });

  it('fails at once, naming the database with its password masked, when it cannot connect', async () => {
    const url = 'postgres://app:hunter2@127.0.0.1:1/plants';
    await expect(openTokenStore(url, { connectTimeoutMs: 1000 })).rejects.toThrow(
      /^Cannot open the PostgreSQL store at postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/plants: .*ECONNREFUSED/,
    );
    await expect(openTokenStore(url, { connectTimeoutMs: 1000 })).rejects.not.toThrow(/hunter2/);
  });
});

/**
 * Replaces the migrated `tokens` table of `schema` with a view of one token (digest
 * `digest`) whose name is the reading session's own settings, and which only sessions
 * matching `where` see: what the token store's pool set on its connections, read back
 * through the store's ordinary queries.
 */
async function replaceTokensWithSettingsProbe(
  schema: TestSchema,
  digest: string,
  where = 'true',
): Promise<void> {
  await adminQuery(
    schema.url,
    `ALTER TABLE tokens RENAME TO tokens_moved;
     CREATE VIEW tokens AS SELECT
       1 AS id,
       concat_ws(' ', current_setting('statement_timeout'), current_setting('lock_timeout'),
                 current_setting('application_name')) AS name,
       '${digest}'::text AS digest,
       now() AS created_at, NULL::timestamptz AS expires_at, NULL::timestamptz AS revoked_at
     WHERE ${where}`,
  );
}

describe('PostgreSQL token store: the PG_* settings', () => {
  const schemas: TestSchema[] = [];
  const probeDigest = 'd'.repeat(64);
  afterEach(async () => {
    for (const schema of schemas.splice(0)) await schema.drop();
  });
  const newSchema = async () => {
    const schema = await createTestSchema(inject('postgresAdminUrl'), 'tokens_settings');
    schemas.push(schema);
    return schema;
  };

  it('runs its sessions with the configured statement timeout (it used to be a fixed 5 s)', async () => {
    const schema = await newSchema();
    const store = await openTokenStore(schema.url, { statementTimeoutMs: 1234 });
    try {
      await replaceTokensWithSettingsProbe(schema, probeDigest);
      expect((await store.list()).map((t) => t.name)).toEqual(['1234ms 1234ms plant-store']);
    } finally {
      await store.close();
    }
  });

  it('gives up on a silent database after the configured connect timeout', async () => {
    const target = new URL(inject('postgresAdminUrl'));
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
    try {
      await proxy.setMode('blackhole');
      const url = new URL(target);
      url.port = String(proxy.port);
      // Started together against the same silent server: the configured 300 ms gives up before
      // the 2000 ms default does (the order of two timers, not a clock reading).
      const race = await firstToSettle(
        openTokenStore(url.href, { connectTimeoutMs: 300 }),
        openTokenStore(url.href),
      );
      expect(race.first).toBe('configured');
      for (const error of [race.configured, race.reference]) {
        expect(String(error)).toMatch(
          /Cannot open the PostgreSQL store at .*(connection timeout|trying to connect)/,
        );
      }
    } finally {
      await proxy.setMode('forward');
      await proxy.close();
    }
  });

  it('is opened by the server with PG_STATEMENT_TIMEOUT_MS: a token found only by such a session is accepted', async () => {
    const schema = await newSchema();
    const config = loadConfig({
      PORT: '0',
      DATABASE_URL: schema.url,
      PLANT_STORE_TOKENS: 'settings-test-env-token-0123456789',
      PG_STATEMENT_TIMEOUT_MS: '1234',
    });
    const server = await startServer(config, silentLogger());
    try {
      const token = generateToken();
      // The token is found only by a session whose statement_timeout is the configured one.
      await replaceTokensWithSettingsProbe(
        schema,
        digestToken(token),
        `current_setting('statement_timeout') = '1234ms'`,
      );
      const response = await fetch(`${server.url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1, name: 'Fern' }),
      });
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('is opened by the plant-store tool with the PG_* variables of its environment', async () => {
    const schema = await newSchema();
    await (await openTokenStore(schema.url)).close(); // migrates
    await replaceTokensWithSettingsProbe(schema, probeDigest);
    const run = await runCliProcess(['tokens', 'list', '--json'], {
      DATABASE_URL: schema.url,
      NODE_ENV: 'production',
      PG_STATEMENT_TIMEOUT_MS: '4321',
    });
    expect(run.status, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { name: string }[]).map((t) => t.name)).toEqual([
      '4321ms 4321ms plant-store',
    ]);
  });
});
