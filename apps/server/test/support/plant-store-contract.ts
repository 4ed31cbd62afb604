import {
  FIELD_LIST,
  type FieldType,
  type NewPlant,
  type PlantField,
  plantOf,
} from '@plant-store/schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  COLUMN_TYPES,
  type CreateOutcome,
  type PlantStore,
  type StoreObserver,
  StoreUnavailableError,
} from '../../src/store/plant-store.ts';

/** `commits`: batches that committed; `creates`: settled creates (as its observer heard). */
type GroupCommitStats = { readonly commits: number; readonly creates: number };
/** A store under test: the PlantStore interface plus its group-commit counters. */
export type ContractStore = PlantStore & { stats(): GroupCommitStats };

/**
 * A row as the database holds it, read over a separate connection (`SELECT ${PLANT_COLUMNS}`):
 * the id as the database's decimal text (never through a JS number), NULL for an absent field.
 */
export type StoredRow = { readonly id: string } & Record<PlantField, string | null>;

/** One empty database, and how to open stores on it and look at it directly. */
export interface StoreHarness {
  /** Opens a store on this test's database (every call: the same database). */
  open(options: { maxBatchSize?: number; observer: StoreObserver }): Promise<PlantStore>;
  /** Every stored plant, ordered by id. */
  rows(): Promise<StoredRow[]>;
  /** The names of the plants table's columns. */
  columns(): Promise<string[]>;
  /** The schema version recorded in the database. */
  schemaVersion(): Promise<number>;
  /** Removes the database. Stores opened by `open` are closed before this is called. */
  dispose(): Promise<void>;
}

/**
 * For each of `fields` that has no column among `columns`, what to do: the migration each store
 * needs, its column type from the field's type (COLUMN_TYPES), as
 * src/store/migrations-match-fields.test.ts states it; empty when every field has its column.
 *
 * @example
 * missingColumns(['name'], [{ name: 'height', type: 'integer', required: false }]);
 * // ['the field height has no column: append … ALTER TABLE plants ADD COLUMN height INTEGER; …']
 */
export function missingColumns(
  columns: readonly string[],
  fields: readonly { name: string; type: FieldType; required: boolean }[] = FIELD_LIST,
): string[] {
  return fields
    .filter((field) => !columns.includes(field.name))
    .map((field) => {
      const migration = (dialect: 'sqlite' | 'postgres') => {
        const type = COLUMN_TYPES[field.type][dialect].toUpperCase();
        const notNull = field.required ? ' NOT NULL' : '';
        return `apps/server/src/store/${dialect}/migrations.ts: ALTER TABLE plants ADD COLUMN ${field.name} ${type}${notNull};`;
      };
      return `the field ${field.name} has no column: append a migration (never edit a released one) to ${migration('sqlite')} and to ${migration('postgres')}`;
    });
}

function tally(outcomes: CreateOutcome[]): Record<CreateOutcome, number> {
  const counts = { created: 0, replayed: 0, conflict: 0 };
  for (const outcome of outcomes) counts[outcome] += 1;
  return counts;
}

/**
 * The behaviour every PlantStore adapter must have, as one vitest suite; each adapter's
 * `*.contract.test.ts` runs it with a harness that gives every test an empty database.
 *
 * @example
 * describePlantStoreContract('SqliteStore', async () => {
 *   const filename = join(mkdtempSync(join(tmpdir(), 'contract-')), 'plants.db');
 *   return { open: (options) => createSqliteStore({ filename, ...options }), rows, schemaVersion, dispose };
 * });
 */
export function describePlantStoreContract(
  adapter: string,
  createHarness: () => Promise<StoreHarness>,
): void {
  describe(`${adapter} (PlantStore contract)`, () => {
    let harness: StoreHarness;
    const opened: ContractStore[] = [];
    const open = async (options?: { maxBatchSize?: number }) => {
      const counts = { commits: 0, creates: 0 };
      const observer: StoreObserver = {
        onCommit(size, _seconds, committed) {
          counts.creates += size;
          counts.commits += committed ? 1 : 0;
        },
      };
      const plain = await harness.open({ ...options, observer });
      const store: ContractStore = Object.assign(plain, { stats: () => ({ ...counts }) });
      opened.push(store);
      return store;
    };

    beforeEach(async () => {
      harness = await createHarness();
    });

    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await harness.dispose();
    });

    /** The stored plants as Plants with their ids: absent (NULL) fields left out. */
    const rows = async () =>
      (await harness.rows()).map(({ id, ...fields }) => ({ id, ...plantOf(fields) }));

    it('has a column for every Plant field, so a new field of the contract is stored', async () => {
      // Opening runs the migrations; a store without a column for a field fails to open.
      await open().catch(() => undefined);
      expect(missingColumns(await harness.columns())).toEqual([]);
    });

    it('stores every Plant field, and a plant that differs in any one of them is a conflict', async () => {
      const store = await open();
      // A value of each field's type, and another one.
      const value = (field: (typeof FIELD_LIST)[number], n: number) =>
        field.type === 'string'
          ? `${n === 0 ? '' : 'another '}${field.name} 3`
          : field.type === 'integer'
            ? field.minimum + n
            : n === 0;
      const full = {
        id: 3n,
        ...Object.fromEntries(FIELD_LIST.map((field) => [field.name, value(field, 0)])),
      };
      expect(await store.create(full as NewPlant)).toBe('created');
      expect(await store.create({ ...full } as NewPlant)).toBe('replayed');
      for (const field of FIELD_LIST) {
        const other = { ...full, [field.name]: value(field, 1) } as NewPlant;
        expect(await store.create(other), `a plant with another ${field.name}`).toBe('conflict');
      }
      expect(await rows()).toEqual([{ ...full, id: '3' }]);
    });

    it('creates, replays the same plant, and reports another plant with the id as a conflict', async () => {
      const store = await open();
      expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
      expect(await store.create({ id: 1n, name: 'Fern' })).toBe('replayed');
      expect(await store.create({ id: 1n, name: 'Moss' })).toBe('conflict');
      expect(await store.create({ id: 1n, name: 'Fern', tag: 'indoor' })).toBe('conflict');
      expect(await rows()).toEqual([{ id: '1', name: 'Fern' }]);
    });

    it('treats the tag as part of the plant: same tag replays, missing or other tag conflicts', async () => {
      const store = await open();
      expect(await store.create({ id: 2n, name: 'Rose', tag: 'outdoor' })).toBe('created');
      expect(await store.create({ id: 2n, name: 'Rose', tag: 'outdoor' })).toBe('replayed');
      expect(await store.create({ id: 2n, name: 'Rose' })).toBe('conflict');
      expect(await store.create({ id: 2n, name: 'Rose', tag: 'indoor' })).toBe('conflict');
      expect(await rows()).toEqual([{ id: '2', name: 'Rose', tag: 'outdoor' }]);
    });

    it('gives exactly one "created" to 20 concurrent creates of one id with different names', async () => {
      const store = await open();
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.create({ id: 42n, name: `Plant ${i}` })),
      );
      expect(outcomes[0]).toBe('created');
      expect(tally(outcomes)).toEqual({ created: 1, replayed: 0, conflict: 19 });
      expect(await rows()).toEqual([{ id: '42', name: 'Plant 0' }]);
    });

    it('replays duplicates of the same plant inside one batch, in one commit', async () => {
      const store = await open();
      const outcomes = await Promise.all(
        Array.from({ length: 5 }, () => store.create({ id: 7n, name: 'Ivy', tag: 'climber' })),
      );
      expect(outcomes).toEqual(['created', 'replayed', 'replayed', 'replayed', 'replayed']);
      expect(store.stats()).toEqual({ commits: 1, creates: 5 });
    });

    it('does not fail batch-mates when rows of the batch are rejected', async () => {
      const store = await open();
      const results = await Promise.allSettled([
        store.create({ id: 1n, name: 'Fern' }),
        store.create({ id: 2n ** 63n, name: 'Too big' }),
        store.create({ id: 3n, name: null } as unknown as NewPlant),
        store.create({ id: 4n, name: 'Moss' }),
        store.create({ id: 1n, name: 'Fern' }),
      ]);
      expect(results.map((r) => r.status)).toEqual([
        'fulfilled',
        'rejected',
        'rejected',
        'fulfilled',
        'fulfilled',
      ]);
      expect(results[4]).toEqual({ status: 'fulfilled', value: 'replayed' });
      expect(store.stats()).toEqual({ commits: 1, creates: 5 });
      expect((await rows()).map((r) => r.id)).toEqual(['1', '4']);
    });

    it('commits the creates of one event-loop turn in batches of at most maxBatchSize', async () => {
      const store = await open({ maxBatchSize: 10 });
      const ids = Array.from({ length: 25 }, (_, i) => BigInt(i + 1));
      const outcomes = await Promise.all(ids.map((id) => store.create({ id, name: `P${id}` })));
      expect(tally(outcomes)).toEqual({ created: 25, replayed: 0, conflict: 0 });
      expect(store.stats()).toEqual({ commits: 3, creates: 25 });
      expect(await store.create({ id: 100n, name: 'Later' })).toBe('created');
      expect(store.stats()).toEqual({ commits: 4, creates: 26 });
      expect(await rows()).toHaveLength(26);
    });

    it('gives one winner per id when two stores on one database create overlapping ids', async () => {
      const [a, b] = await Promise.all([open(), open()]);
      const ids = Array.from({ length: 30 }, (_, i) => BigInt(i));
      const outcomes = await Promise.all(
        ids.flatMap((id) => [
          a.create({ id, name: `A${id}` }),
          b.create({ id, name: `B${id}` }),
          b.create({ id, name: `A${id}` }),
        ]),
      );
      const counts = tally(outcomes);
      expect(counts.created).toBe(30);
      expect(counts.replayed + counts.conflict).toBe(60);
      const stored = await rows();
      expect(stored.map((r) => r.id)).toEqual(ids.map(String));
      ids.forEach((_, i) => {
        const [fromA, fromB, sameAsA] = outcomes.slice(i * 3, i * 3 + 3);
        const winner = stored[i]?.name;
        expect(winner === `A${i}` || winner === `B${i}`).toBe(true);
        expect([fromA, fromB].filter((o) => o === 'created')).toHaveLength(1);
        expect(fromA).toBe(winner === `A${i}` ? 'created' : 'conflict');
        // B's second create has A's name: a replay when A won, a conflict when B did.
        expect(sameAsA).toBe(winner === `A${i}` ? 'replayed' : 'conflict');
      });
    });

    it('round-trips the int64 edges exactly across close and reopen', async () => {
      const ids = [-(2n ** 63n), 2n ** 63n - 1n, -(2n ** 63n - 1n), 2n ** 53n + 1n, 0n, -1n];
      const first = await open();
      const created = await Promise.all(ids.map((id) => first.create({ id, name: `P${id}` })));
      expect(created).toEqual(ids.map(() => 'created'));
      await first.close();

      const second = await open();
      // A replay compares the stored row: each id reads back as itself.
      for (const id of ids) expect(await second.create({ id, name: `P${id}` })).toBe('replayed');
      // Neighbours of the big ids are distinct ids (no rounding through doubles).
      expect(await second.create({ id: 2n ** 53n, name: 'Neighbour' })).toBe('created');
      expect(await second.create({ id: 2n ** 63n - 2n, name: 'Neighbour' })).toBe('created');
      const sorted = [...ids, 2n ** 53n, 2n ** 63n - 2n].sort((x, y) => (x < y ? -1 : 1));
      expect((await rows()).map((r) => r.id)).toEqual(sorted.map(String));
    });

    it('keeps plants across close and reopen', async () => {
      const first = await open();
      await first.create({ id: 5n, name: 'Cactus', tag: 'desert' });
      await first.close();
      const second = await open();
      expect(await second.create({ id: 5n, name: 'Cactus', tag: 'desert' })).toBe('replayed');
      expect(await second.create({ id: 5n, name: 'Cactus' })).toBe('conflict');
    });

    it('migrates once: reopening and opening twice at once apply nothing again', async () => {
      const [a, b] = await Promise.all([open(), open()]);
      const version = await harness.schemaVersion();
      expect(version).toBeGreaterThanOrEqual(1);
      expect(await a.create({ id: 1n, name: 'Fern' })).toBe('created');
      expect(await b.create({ id: 1n, name: 'Fern' })).toBe('replayed');
      await a.close();
      await b.close();
      const again = await open();
      expect(await harness.schemaVersion()).toBe(version);
      expect(await again.create({ id: 1n, name: 'Fern' })).toBe('replayed');
    });

    it('pings an open store', async () => {
      await expect((await open()).ping()).resolves.toBeUndefined();
    });

    it('commits creates still queued when close is called', async () => {
      const store = await open();
      const pending = store.create({ id: 9n, name: 'Late' });
      await store.close();
      expect(await pending).toBe('created');
      expect(await rows()).toEqual([{ id: '9', name: 'Late' }]);
    });

    it('rejects every call after close with StoreUnavailableError; a second close resolves', async () => {
      const store = await open();
      await store.close();
      await expect(store.create({ id: 1n, name: 'Fern' })).rejects.toThrow(StoreUnavailableError);
      await expect(store.ping()).rejects.toThrow(/closed/);
      await expect(store.close()).resolves.toBeUndefined();
      expect(await rows()).toEqual([]);
    });
  });
}
