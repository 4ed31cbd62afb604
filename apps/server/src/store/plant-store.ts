import {
  FIELD_LIST,
  type FieldType,
  type NewPlant,
  PLANT_FIELDS,
  type PlantField,
  plantOf,
} from '@plant-store/schema';

/** `replayed`: the id holds a plant with the same fields; `conflict`: another one. */
export type CreateOutcome = 'created' | 'replayed' | 'conflict';

/** The database cannot be reached right now (mapped to 503). */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

export interface StoreObserver {
  /** A group commit of `size` creates settled after `seconds`. */
  onCommit?(size: number, seconds: number, committed: boolean): void;
  /** A call settled after `seconds`, as its caller waited (`outcome`: a create's, `ok`, `error`). */
  onCall?(operation: 'create' | 'ping', outcome: string, seconds: number): void;
}

/** `full`: every commit fsynced, survives power loss; `normal`: survives a process crash only. */
export type Durability = 'full' | 'normal';

/** A row of `plants` as a store reads it: the id, then each field's column (NULL: not given). */
export type PlantRow = { id: bigint } & Record<PlantField, unknown>;

/**
 * The column type of a field of each JSON type (plant-fields.ts), in each store: what the
 * migrations must create (a unit test compares them, migrations-match-fields.test.ts) and what
 * PostgreSQL's batch insert casts its arrays to. A boolean is 1/0 in SQLite.
 */
export const COLUMN_TYPES: Record<FieldType, { sqlite: string; postgres: string }> = {
  string: { sqlite: 'TEXT', postgres: 'text' },
  integer: { sqlite: 'INTEGER', postgres: 'bigint' },
  boolean: { sqlite: 'INTEGER', postgres: 'boolean' },
};

export const PLANT_COLUMNS = ['id', ...PLANT_FIELDS].join(', ');

/** A NewPlant's fields as column values, in PLANT_FIELDS' order: NULL when left out. */
export const fieldValues = (plant: NewPlant): (string | number | null)[] =>
  FIELD_LIST.map(({ name }) => {
    const value: string | number | boolean | undefined = plant[name];
    return value === undefined ? null : typeof value === 'boolean' ? Number(value) : value;
  });

/** `replayed` when the stored row holds the same fields as `plant`, else `conflict`. */
export function outcomeAgainst(
  stored: { readonly [Field in PlantField]?: unknown },
  plant: NewPlant,
): CreateOutcome {
  const storedPlant: Partial<Record<PlantField, unknown>> = plantOf(stored);
  const given: Partial<Record<PlantField, unknown>> = plantOf(plant);
  return PLANT_FIELDS.every((field) => storedPlant[field] === given[field])
    ? 'replayed'
    : 'conflict';
}

/** The code (SQLite's, a SQLSTATE, an errno, …) of `error` or of the first error it wraps. */
export function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 10; depth += 1) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string') return code;
    current = current instanceof AggregateError ? current.errors[0] : current.cause;
  }
  return undefined;
}

/** Not ready: a stable code (`SQLITE_FULL`, a SQLSTATE, …) and the error's message. */
export type Readiness =
  | { readonly ready: true }
  | { readonly ready: false; readonly cause: { readonly code: string; readonly message: string } };

/** Persistence for plants with create-if-absent semantics. */
export interface PlantStore {
  /** Never overwrites. Resolves once the outcome is durable. */
  create(plant: NewPlant): Promise<CreateOutcome>;
  ping(): Promise<void>;
  readiness(): Readiness;
  close(): Promise<void>;
}
