import { afterEach, beforeEach, inject } from 'vitest';
import {
  createPostgresStore,
  type PostgresStore,
  type PostgresStoreOptions,
} from '../../src/store/postgres/postgres-store.ts';
import { adminQuery, createTestSchema, type TestSchema } from './postgres.ts';

/**
 * A fresh schema on the tier's PostgreSQL for each test, and the stores a test opens on it,
 * closed after it (`beforeClose` first: e.g. make the database reachable again).
 *
 * @example
 * const db = usePostgresStores();
 * it('creates', async () => expect(await (await db.open()).create(plant)).toBe('created'));
 */
export function usePostgresStores(beforeClose: () => Promise<void> = async () => {}) {
  let schema: TestSchema | undefined;
  const stores: PostgresStore[] = [];
  beforeEach(async () => {
    schema = await createTestSchema(inject('postgresAdminUrl'));
  });
  afterEach(async () => {
    await beforeClose();
    for (const store of stores.splice(0)) await store.close();
    await schema?.drop();
  });
  const current = (): TestSchema => {
    if (schema === undefined) throw new Error('usePostgresStores: only inside a test');
    return schema;
  };
  return {
    /** The test's schema: its URL (search_path set) and name. */
    schema: current,
    /** A store on the test's schema, closed after the test. */
    async open(options: Partial<PostgresStoreOptions> = {}): Promise<PostgresStore> {
      const store = await createPostgresStore({ url: current().url, ...options });
      stores.push(store);
      return store;
    },
    /** `text` run as the administrator on the test's schema. */
    sql: (text: string) => adminQuery(current().url, text),
    /** Closes `store` after the test, with the others. */
    track(store: PostgresStore): PostgresStore {
      stores.push(store);
      return store;
    },
  };
}
