import { FIELD_LIST, type NewPlant } from '@plant-store/schema';
import type pg from 'pg';
import type { PostgresConfig } from '../../config.ts';
import { BatchedStore, type BatchedStoreOptions, type RowResult } from '../batched-store.ts';
import { type OpenDatabaseOptions, openPostgres, type PostgresHandle } from '../database.ts';
import {
  COLUMN_TYPES,
  fieldValues,
  outcomeAgainst,
  PLANT_COLUMNS,
  type PlantRow,
  type PlantStore,
} from '../plant-store.ts';
import { isPostgresUnavailable, isStaleConnection, translatePostgresError } from './errors.ts';

export interface PostgresStoreOptions
  extends BatchedStoreOptions,
    Omit<OpenDatabaseOptions, 'postgres'>,
    Partial<PostgresConfig> {
  readonly url: string;
  /** The process's one pool; without it the store opens its own. */
  readonly handle?: PostgresHandle;
}

const INSERT_BATCH = `
  INSERT INTO plants (${PLANT_COLUMNS})
  SELECT * FROM unnest($1::bigint[], ${FIELD_LIST.map((field, i) => `$${i + 2}::${COLUMN_TYPES[field.type].postgres}[]`).join(', ')})
  ON CONFLICT (id) DO NOTHING
  RETURNING id`;
const SELECT_MANY = `SELECT ${PLANT_COLUMNS} FROM plants WHERE id = ANY($1::bigint[])`;
/**
 * An INSERT that inserts nothing (a read-only database or a missing privilege fails it as it
 * fails a create), in a transaction given an id, so its commit record goes to the WAL.
 */
const PROBE_WRITE = `
  WITH probe AS (INSERT INTO plants (id) SELECT 0 WHERE false RETURNING id)
  SELECT txid_current() AS xid, (SELECT count(*) FROM probe) AS inserted`;

export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const handle =
    options.handle ?? (await openPostgres(options.url, { ...options, postgres: options }));
  return new PostgresStore(options, handle, options.handle === undefined);
}

/**
 * A batch is one INSERT … ON CONFLICT DO NOTHING RETURNING id: ids it did not return existed and
 * are compared with the stored row. Within a batch the first plant of an id wins. Rows go in id
 * order, so concurrent batches wait for each other instead of deadlocking.
 */
export class PostgresStore extends BatchedStore implements PlantStore {
  readonly #handle: PostgresHandle;
  readonly #owned: boolean;

  constructor(options: BatchedStoreOptions, handle: PostgresHandle, owned: boolean) {
    super(options, 2); // two batches in flight, each on its own connection
    this.#handle = handle;
    this.#owned = owned;
    this.startProbing();
  }

  /** Within the connect timeout: the readiness ping must not wait for a slow statement's. */
  protected override async query1(): Promise<void> {
    await this.#query('SELECT 1', [], this.#handle.settings.connectTimeoutMs);
  }

  protected async probeWrite(): Promise<void> {
    await this.#query(PROBE_WRITE, [], this.#handle.settings.connectTimeoutMs);
  }

  protected translate = translatePostgresError;

  protected async release(): Promise<void> {
    if (this.#owned) await this.#handle.close();
  }

  /** When the database refuses a row of the batch, one plant at a time, so only that row fails. */
  protected async commitBatch(plants: readonly NewPlant[]): Promise<RowResult[]> {
    try {
      return await this.#commitRows(plants);
    } catch (error) {
      if (isPostgresUnavailable(error)) throw error;
      if (plants.length === 1) return [{ ok: false, error }];
      const results: RowResult[] = [];
      for (const plant of plants) results.push(...(await this.commitBatch([plant])));
      return results;
    }
  }

  async #commitRows(plants: readonly NewPlant[]): Promise<RowResult[]> {
    const first = new Map<bigint, NewPlant>();
    for (const plant of plants) if (!first.has(plant.id)) first.set(plant.id, plant);
    const rows = [...first.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const values = rows.map(fieldValues);
    const inserted = await this.#query<{ id: bigint }>(INSERT_BATCH, [
      rows.map((plant) => plant.id.toString()),
      ...FIELD_LIST.map((_, i) => values.map((row) => row[i])),
    ]);
    const created = new Set(inserted.map((row) => row.id));
    const ids = rows.filter((plant) => !created.has(plant.id)).map((plant) => plant.id.toString());
    let lookUpError: unknown; // the created plants are committed; only the others fail
    const found =
      ids.length === 0
        ? []
        : await this.#query<PlantRow>(SELECT_MANY, [ids]).catch((error: unknown) => {
            lookUpError = error;
            return [];
          });
    const stored = new Map(found.map((row) => [row.id, row]));
    return plants.map((plant): RowResult => {
      // The batch's first plant of the id when it inserted it, else the row that was there.
      const against = created.has(plant.id) ? first.get(plant.id) : stored.get(plant.id);
      if (against === plant) return { ok: true, value: 'created' };
      if (against !== undefined) return { ok: true, value: outcomeAgainst(against, plant) };
      const error = lookUpError ?? new Error(`Plant ${plant.id} was neither inserted nor found`);
      return { ok: false, error };
    });
  }

  /** Every query here is idempotent: one that met a dead pooled connection is sent again. */
  async #query<Row extends pg.QueryResultRow>(
    text: string,
    values: unknown[],
    queryTimeoutMs?: number,
  ): Promise<Row[]> {
    // pg takes a per-query `query_timeout` (its changelog, 8.13.0); its QueryConfig type omits it.
    const query: pg.QueryConfig & { query_timeout?: number | undefined } = {
      text,
      values,
      query_timeout: queryTimeoutMs,
    };
    for (let attempt = 1; ; attempt += 1) {
      try {
        return (await this.#handle.pool.query<Row>(query)).rows;
      } catch (error) {
        if (attempt > this.#handle.settings.poolMax || !isStaleConnection(error)) throw error;
      }
    }
  }
}
