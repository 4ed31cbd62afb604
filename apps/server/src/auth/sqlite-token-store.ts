import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { StoreUnavailableError } from '../store/plant-store.ts';
import { openSqlite, SqliteError } from '../store/sqlite/driver.ts';
import { sqliteOpenError } from '../store/sqlite/errors.ts';
import { migrate } from '../store/sqlite/migrations.ts';
import {
  type NewTokenRecord,
  type RevokeResult,
  TOKEN_COLUMNS,
  TokenNameTakenError,
  type TokenRow,
  type TokenSelector,
  type TokenStore,
  toTokenRecord,
} from './token-store.ts';

/** Options of `createSqliteTokenStore`. */
export interface SqliteTokenStoreOptions {
  /** The plant store's database file (created and migrated when missing). */
  readonly filename: string;
  /** How long a statement waits for another connection's lock; default 5000. */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens the managed tokens of a SQLite plant store on a connection of its own (WAL lets it
 * read while the plant store writes), migrating the file first, so the command-line tool
 * works before the server ever ran. Writes are fsynced (`synchronous=FULL`).
 *
 * @example
 * const tokens = createSqliteTokenStore({ filename: 'data/plants.db' });
 * await tokens.list();
 * await tokens.close();
 */
export function createSqliteTokenStore(options: SqliteTokenStoreOptions): TokenStore {
  const { filename } = options;
  if (filename === '' || filename === ':memory:') {
    throw new Error(`The SQLite store needs a database file, not ${JSON.stringify(filename)}`);
  }
  let db: ReturnType<typeof openSqlite> | undefined;
  try {
    mkdirSync(dirname(filename), { recursive: true });
    db = openSqlite(filename, { timeout: options.busyTimeoutMs ?? 5000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    migrate(db);
    return tokenStoreOn(db);
  } catch (error) {
    db?.close();
    // One line naming the file, why and what to do (the tool and the server print it).
    throw sqliteOpenError(error, filename);
  }
}

function tokenStoreOn(db: ReturnType<typeof openSqlite>): TokenStore {
  const select = `SELECT ${TOKEN_COLUMNS} FROM tokens`;
  const retireExpired = db.prepare<[string, string, string]>(
    `UPDATE tokens SET revoked_at = ?
     WHERE name = ? AND revoked_at IS NULL AND expires_at IS NOT NULL AND expires_at <= ?`,
  );
  const insertRow = db.prepare<[string, string, string, string | null], TokenRow>(
    `INSERT INTO tokens (name, digest, created_at, expires_at) VALUES (?, ?, ?, ?)
     RETURNING ${TOKEN_COLUMNS}`,
  );
  const insert = db.transaction((token: NewTokenRecord) => {
    const now = token.createdAt.toISOString();
    retireExpired.run(now, token.name, now);
    try {
      const expires = token.expiresAt?.toISOString() ?? null;
      return toTokenRecord(insertRow.get(token.name, token.digest, now, expires) as TokenRow);
    } catch (error) {
      if (isUniqueViolation(error, 'tokens.name')) throw new TokenNameTakenError(token.name);
      throw error;
    }
  });
  const all = db.prepare<[], TokenRow>(`${select} ORDER BY id`);
  const byDigest = db.prepare<[string], TokenRow>(`${select} WHERE digest = ?`);
  // Per selector column: revoke the token not yet revoked, else find the latest one.
  const revoking = (column: 'id' | 'name') => ({
    revoke: db.prepare<[string, number | string], TokenRow>(
      `UPDATE tokens SET revoked_at = ? WHERE ${column} = ? AND revoked_at IS NULL
       RETURNING ${TOKEN_COLUMNS}`,
    ),
    latest: db.prepare<[number | string], TokenRow>(
      `${select} WHERE ${column} = ? ORDER BY id DESC LIMIT 1`,
    ),
  });
  const by = { id: revoking('id'), name: revoking('name') };
  const revoke = db.transaction((selector: TokenSelector, at: Date): RevokeResult => {
    const [statements, value] = 'id' in selector ? [by.id, selector.id] : [by.name, selector.name];
    const revoked = statements.revoke.get(at.toISOString(), value);
    if (revoked !== undefined) return { status: 'revoked', token: toTokenRecord(revoked) };
    const latest = statements.latest.get(value);
    return latest === undefined
      ? { status: 'not-found' }
      : { status: 'already-revoked', token: toTokenRecord(latest) };
  });
  let closed = false;
  const open = () => {
    if (closed) throw new StoreUnavailableError('The token store is closed');
  };
  return {
    insert: async (token) => {
      open();
      return insert.immediate(token);
    },
    list: async () => {
      open();
      return all.all().map(toTokenRecord);
    },
    revoke: async (selector, at) => {
      open();
      return revoke.immediate(selector, at);
    },
    findByDigest: async (digest) => {
      open();
      let row: TokenRow | undefined;
      try {
        row = byDigest.get(digest);
      } catch (error) {
        // The server answers 503 (and the client retries) rather than 500 on a locked file.
        throw new StoreUnavailableError(`SQLite could not look up a token: ${String(error)}`, {
          cause: error,
        });
      }
      return row === undefined ? undefined : toTokenRecord(row);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

function isUniqueViolation(error: unknown, column: string): boolean {
  return (
    error instanceof SqliteError &&
    error.code === 'SQLITE_CONSTRAINT_UNIQUE' &&
    error.message.includes(column)
  );
}
