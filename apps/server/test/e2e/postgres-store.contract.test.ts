import { inject } from 'vitest';
import { PLANT_COLUMNS } from '../../src/store/plant-store.ts';
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
        `SELECT ${PLANT_COLUMNS.replace('id', 'id::text AS id')} FROM plants ORDER BY plants.id`,
      )) as StoredRow[],
    columns: async () =>
      (
        (await adminQuery(
          schema.url,
          "SELECT column_name FROM information_schema.columns WHERE table_name = 'plants' AND table_schema = current_schema()",
        )) as { column_name: string }[]
      ).map((column) => column.column_name),
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
