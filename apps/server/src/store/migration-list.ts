import { StartupError } from '../config.ts';

/** One forward-only schema change; the n-th of a list brings the database from n − 1 to n. */
export interface Migration {
  readonly name: string;
  readonly sql: string;
}

export function checkMigrations(migrations: readonly Migration[], from: number): void {
  if (from > migrations.length) {
    throw new StartupError(
      `The database schema is at version ${from}, but this server only knows versions up to ${migrations.length}; ` +
        'run a newer server or point it at another database.',
    );
  }
}
