import { describe, expect, inject, it } from 'vitest';
import { createTestSchema } from '../testing/postgres.ts';
import { digestToken } from '../token-registry.ts';
import { ManagedTokenVerifier } from './managed-token-verifier.ts';
import { openTokenStore } from './open-token-store.ts';
import { createPostgresTokenStore } from './postgres-token-store.ts';
import { describeTokenStore } from './token-store-contract.ts';

describeTokenStore('PostgreSQL', async () => {
  const schema = await createTestSchema(inject('postgresAdminUrl'), 'tokens_test');
  const store = await createPostgresTokenStore({ url: schema.url });
  return {
    store,
    async dispose() {
      await store.close();
      await schema.drop();
    },
  };
});

describe('PostgreSQL token store', () => {
  it('is what openTokenStore opens for a postgres URL, and serves the verifier', async () => {
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
      // A made-up token body fails its checksum: the verifier never asks PostgreSQL.
      const verifier = new ManagedTokenVerifier(store);
      expect(await verifier.verify(token)).toBeUndefined();
      expect(verifier.stats().storeLookups).toBe(0);
    } finally {
      await store.close();
      await schema.drop();
    }
  });

  it('fails at once, naming the database with its password masked, when it cannot connect', async () => {
    const url = 'postgres://app:hunter2@127.0.0.1:1/plants';
    await expect(createPostgresTokenStore({ url, timeoutMs: 1000 })).rejects.toThrow(
      /Cannot open the PostgreSQL token store at postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/plants/,
    );
    await expect(createPostgresTokenStore({ url, timeoutMs: 1000 })).rejects.not.toThrow(/hunter2/);
  });
});
