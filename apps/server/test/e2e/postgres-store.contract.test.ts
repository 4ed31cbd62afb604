import { inject } from 'vitest';
import { createPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { describePlantStoreContract, type StoredRow } from '../support/plant-store-contract.ts';
import { adminQuery, createTestSchema } from '../support/postgres.ts';

describePlantStoreContract('PostgresStore', async () => {
  const schema = await createTestSchema(inject('postgresAdminUrl'));
  return {
    open: (options) => createPostgresStore({ url: schema.url, ...options }),
    rows: async () =>
      (await adminQuery(
        schema.url,
        'SELECT id::text AS id, name, tag FROM plants ORDER BY plants.id',
      )) as StoredRow[],
    schemaVersion: async () => {
      const rows = await adminQuery(
        schema.url,
        'SELECT coalesce(max(version), 0) AS version FROM schema_migrations',
      );
      return Number(rows[0]?.version);
    },
    dispose: () => schema.drop(),
  };
});
