// What both stores' migrations share: the shape of a migration and the checks on a list.
import { StoreOpenError } from './plant-store.ts';

/** One forward-only schema change; `version` n brings the database from n − 1 to n. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Thrown when the database was migrated by newer code than this one. */
export class SchemaTooNewError extends StoreOpenError {
  override readonly name: string = 'SchemaTooNewError';
}

/** Throws unless the versions are 1, 2, 3, ... in order. */
export function checkMigrationList(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `Migration "${migration.name}" has version ${migration.version}; expected ${index + 1} (versions must be 1, 2, 3, ... in order).`,
      );
    }
  });
}
