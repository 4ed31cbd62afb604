import { fileURLToPath } from 'node:url';
import { maskUrl } from './mask-url.ts';
import type { PlantStore } from './plant-store.ts';
import type { PostgresStoreOptions } from './postgres/postgres-store.ts';
import { createSqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.ts';

type Shared = 'durability' | 'maxBatchSize' | 'observer';

/** PostgreSQL-only settings of `openStore`: pool, timeouts, startup wait, error reporting. */
export type OpenPostgresOptions = Omit<PostgresStoreOptions, 'url' | Shared>;

/** Options of `openStore`: the shared ones, and those of each kind of store. */
export interface OpenStoreOptions extends Pick<SqliteStoreOptions, Shared> {
  readonly sqlite?: Omit<SqliteStoreOptions, 'filename' | Shared>;
  readonly postgres?: OpenPostgresOptions;
}

const ACCEPTED_FORMS =
  'a file path (data/plants.db, /var/lib/plants.db), a file: URL (file:./data/plants.db, ' +
  'file:///var/lib/plants.db) or a postgres:// / postgresql:// URL';

// A URL scheme (RFC 3986) followed by ':'; a single letter before ':' is a Windows drive.
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]+):/;

/**
 * Classifies a database URL without touching the file system: a path (no scheme) or a `file:`
 * URL is a SQLite file, `postgres:`/`postgresql:` a PostgreSQL URL; anything else throws.
 */
export function parseDatabaseUrl(
  url: string,
): { kind: 'sqlite'; filename: string } | { kind: 'postgres'; url: string } {
  if (url.trim() === '') throw invalid(url, 'it is empty');
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: 'sqlite', filename: url };
  if (scheme === 'postgres' || scheme === 'postgresql') return { kind: 'postgres', url };
  if (scheme === 'file') return { kind: 'sqlite', filename: fileUrlToPath(url) };
  throw invalid(url, `the scheme "${scheme}:" is not supported`);
}

/** Opens (creating and migrating when needed) the PlantStore that `databaseUrl` names. */
export async function openStore(
  databaseUrl: string,
  options: OpenStoreOptions = {},
): Promise<PlantStore> {
  const location = parseDatabaseUrl(databaseUrl);
  const { postgres, sqlite, ...shared } = options;
  if (location.kind === 'postgres') {
    // Loaded on demand: a SQLite deployment never pays for loading pg.
    const { createPostgresStore } = await import('./postgres/postgres-store.ts');
    return createPostgresStore({ ...postgres, ...shared, url: location.url });
  }
  return createSqliteStore({ ...sqlite, ...shared, filename: location.filename });
}

/** `databaseUrl` safe to log: the password of a URL is replaced by `***`. */
export const maskDatabaseUrl = maskUrl;

function fileUrlToPath(url: string): string {
  if (url.includes('?') || url.includes('#')) {
    throw invalid(url, 'query strings and fragments are not supported in file: URLs');
  }
  let filename: string;
  try {
    filename = url.toLowerCase().startsWith('file://')
      ? fileURLToPath(url)
      : decodeURIComponent(url.slice('file:'.length));
  } catch (error) {
    throw invalid(url, error instanceof Error ? error.message : String(error));
  }
  if (filename === '') throw invalid(url, 'it names no file');
  return filename;
}

/** The error for an unusable URL; any user-info (credentials) in it is masked. */
function invalid(url: string, reason: string): Error {
  const shown = url.replace(/^([^:/?#]+:\/\/)[^/?#]*@/, '$1***@');
  return new Error(
    `Invalid database URL ${JSON.stringify(shown)}: ${reason}. Use ${ACCEPTED_FORMS}.`,
  );
}
