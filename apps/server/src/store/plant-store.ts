import type { NewPlant } from '@plant-store/schema';
import type { Readiness } from './write-readiness.ts';

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
 * Hooks a store calls so that metrics can watch it without reaching into its internals. Every
 * hook is optional, and a store without group commit simply never calls `onCommit`.
 */
export interface StoreObserver {
  /** A group commit of `size` creates settled after `seconds`; `committed` is false when it failed. */
  onCommit?(size: number, seconds: number, committed: boolean): void;
  /**
   * SQLite with background checkpoints: commits were held for `seconds` while the checkpoint
   * worker copied the WAL's last frames; `walRestarted` when that let the WAL start over.
   */
  onCommitPause?(seconds: number, walRestarted: boolean): void;
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
