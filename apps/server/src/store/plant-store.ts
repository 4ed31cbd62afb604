import type { NewPlant } from '@plant-store/schema';
import { StartupError } from '../config.ts';

/**
 * What `create` did with a NewPlant:
 * - `created`: the id was free; the plant is now stored (durably, when the promise resolves).
 * - `replayed`: the id was taken by a plant with the same name and tag; nothing changed.
 * - `conflict`: the id was taken by a plant with another name or tag; nothing changed.
 */
export type CreateOutcome = 'created' | 'replayed' | 'conflict';

/** Thrown by a store that cannot reach its database right now (mapped to 503). */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/**
 * The database named by DATABASE_URL cannot be opened: one line naming it, why, and what to do.
 * A StartupError, so the process entry prints it as one line, without a stack.
 */
export class StoreOpenError extends StartupError {
  override readonly name: string = 'StoreOpenError';
}

/** Hooks a store calls so that metrics can watch it without reaching into its internals. */
export interface StoreObserver {
  /** A group commit of `size` creates settled after `seconds`; `committed` is false when it failed. */
  onCommit?(size: number, seconds: number, committed: boolean): void;
}

/**
 * How hard a commit tries to survive a crash:
 * - `full`: every commit is fsynced; a resolved create survives power loss.
 * - `normal`: survives a crash of the process; the last commits may be lost on power loss.
 */
export type Durability = 'full' | 'normal';

/** A plants table row as both stores read it: `tag` is NULL when the plant has none. */
export interface PlantRow {
  id: bigint;
  name: string;
  tag: string | null;
}

/** The stored plant a row holds (`tag` only when it is set). */
export function storedPlant(row: PlantRow): NewPlant {
  return row.tag === null
    ? { id: row.id, name: row.name }
    : { id: row.id, name: row.name, tag: row.tag };
}

/** `replayed` when `plant` has the stored row's name and tag, else `conflict`. */
export function outcomeAgainst(
  stored: Pick<NewPlant, 'name' | 'tag'>,
  plant: NewPlant,
): CreateOutcome {
  return stored.name === plant.name && (stored.tag ?? null) === (plant.tag ?? null)
    ? 'replayed'
    : 'conflict';
}

/** Why a store cannot commit: a stable code, what happened, and what the operator should do. */
export interface NotReadyCause {
  /** `SQLITE_FULL`, `SQLITE_READONLY`, `FILE_REPLACED`, a PostgreSQL SQLSTATE, … */
  readonly code: string;
  readonly message: string;
  readonly action: string;
}

/** Whether the store can commit now; when not, why. */
export type Readiness =
  | { readonly ready: true }
  | { readonly ready: false; readonly cause: NotReadyCause };

/** Persistence for plants with create-if-absent semantics. */
export interface PlantStore {
  /** Stores `plant` unless its id exists; never overwrites. Resolves once the outcome is durable. */
  create(plant: NewPlant): Promise<CreateOutcome>;
  /** The stored plant with this id, or `undefined`. */
  get(id: bigint): Promise<NewPlant | undefined>;
  /** Resolves when the store answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  /**
   * Whether the store can commit now, from its latest write (the last commit, or a periodic
   * cheap write probe); when not, the cause and what the operator should do.
   */
  readiness(): Readiness;
  /** Finishes pending work and releases the database. */
  close(): Promise<void>;
}
