import type { NewPlant } from '@plant-store/schema';
import { StartupError } from '../config.ts';

/**
 * What `create` did: `created` (stored, durably once it resolves), `replayed` (the id holds a
 * plant with the same name and tag) or `conflict` (it holds another); the last two change nothing.
 */
export type CreateOutcome = 'created' | 'replayed' | 'conflict';

/** Thrown by a store that cannot reach its database right now (mapped to 503). */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/** The database cannot be opened: one start-up line (no stack) naming it, why, and what to do. */
export class StoreOpenError extends StartupError {
  override readonly name: string = 'StoreOpenError';
}

/** Hooks a store calls so that metrics can watch it. */
export interface StoreObserver {
  /** A group commit of `size` creates settled after `seconds`; `committed` is false when it failed. */
  onCommit?(size: number, seconds: number, committed: boolean): void;
}

/** `full`: every commit fsynced, survives power loss; `normal`: survives a process crash only. */
export type Durability = 'full' | 'normal';

/** A plants table row as both stores read it: `tag` is NULL when the plant has none. */
export type PlantRow = { id: bigint; name: string; tag: string | null };

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

/** Why a store cannot commit: a stable code (`SQLITE_FULL`, a SQLSTATE, …), what, what to do. */
export interface NotReadyCause {
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
  /** Resolves when the store answers a trivial query. */
  ping(): Promise<void>;
  /** Whether the store can commit, from its latest write (a commit or the periodic probe). */
  readiness(): Readiness;
  /** Finishes pending work and releases the database. */
  close(): Promise<void>;
}
