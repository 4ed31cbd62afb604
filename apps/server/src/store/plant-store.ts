import { type NewPlant, PLANT_FIELDS, type PlantField } from '@plant-store/schema';

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

export type PlantRow = { id: bigint } & Record<PlantField, string | null>;

export const PLANT_COLUMNS = ['id', ...PLANT_FIELDS].join(', ');

export const fieldValues = (plant: NewPlant) => PLANT_FIELDS.map((field) => plant[field] ?? null);

export function outcomeAgainst(
  stored: { readonly [Field in PlantField]?: string | null | undefined },
  plant: NewPlant,
): CreateOutcome {
  return PLANT_FIELDS.every((field) => (stored[field] ?? null) === (plant[field] ?? null))
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
