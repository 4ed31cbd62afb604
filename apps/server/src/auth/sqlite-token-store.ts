import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { StoreUnavailableError } from '../store/plant-store.ts';
import { openSqlite, SqliteError } from '../store/sqlite/driver.ts';
import { migrate } from '../store/sqlite/migrations.ts';
import {
  type NewTokenRecord,
  type RevokeResult,
  TOKEN_COLUMNS,
  TokenNameTakenError,
  type TokenRecord,
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
  mkdirSync(dirname(filename), { recursive: true });
  const db = openSqlite(filename, { timeout: options.busyTimeoutMs ?? 5000 });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    migrate(db);
    return new SqliteTokenStore(db);
  } catch (error) {
    db.close();
    throw error;
  }
}

class SqliteTokenStore implements TokenStore {
  readonly #db: Database.Database;
  readonly #insert: Database.Transaction<(token: NewTokenRecord) => TokenRecord>;
  readonly #selectAll: Database.Statement<[], TokenRow>;
  readonly #selectByDigest: Database.Statement<[string], TokenRow>;
  readonly #revoke: Database.Transaction<(selector: TokenSelector, at: Date) => RevokeResult>;
  #closed = false;

  constructor(db: Database.Database) {
    this.#db = db;
    const retireExpired = db.prepare<[string, string, string]>(
      `UPDATE tokens SET revoked_at = ?
       WHERE name = ? AND revoked_at IS NULL AND expires_at IS NOT NULL AND expires_at <= ?`,
    );
    const insert = db.prepare<[string, string, string, string | null], TokenRow>(
      `INSERT INTO tokens (name, digest, created_at, expires_at) VALUES (?, ?, ?, ?)
       RETURNING ${TOKEN_COLUMNS}`,
    );
    this.#insert = db.transaction((token: NewTokenRecord) => {
      const now = token.createdAt.toISOString();
      retireExpired.run(now, token.name, now);
      try {
        return toTokenRecord(
          insert.get(
            token.name,
            token.digest,
            now,
            token.expiresAt?.toISOString() ?? null,
          ) as TokenRow,
        );
      } catch (error) {
        if (isUniqueViolation(error, 'tokens.name')) throw new TokenNameTakenError(token.name);
        throw error;
      }
    });
    this.#selectAll = db.prepare(`SELECT ${TOKEN_COLUMNS} FROM tokens ORDER BY id`);
    this.#selectByDigest = db.prepare(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE digest = ?`);
    const byId = db.prepare<[number], TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE id = ?`);
    const activeByName = db.prepare<[string], TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE name = ? AND revoked_at IS NULL`,
    );
    const lastByName = db.prepare<[string], TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE name = ? ORDER BY id DESC LIMIT 1`,
    );
    const setRevoked = db.prepare<[string, number], TokenRow>(
      `UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING ${TOKEN_COLUMNS}`,
    );
    this.#revoke = db.transaction((selector: TokenSelector, at: Date): RevokeResult => {
      const row =
        'id' in selector
          ? byId.get(selector.id)
          : (activeByName.get(selector.name) ?? lastByName.get(selector.name));
      if (row === undefined) return { status: 'not-found' };
      if (row.revoked_at !== null) return { status: 'already-revoked', token: toTokenRecord(row) };
      const revoked = setRevoked.get(at.toISOString(), row.id) as TokenRow;
      return { status: 'revoked', token: toTokenRecord(revoked) };
    });
  }

  async insert(token: NewTokenRecord): Promise<TokenRecord> {
    this.#open();
    return this.#insert.immediate(token);
  }

  async list(): Promise<TokenRecord[]> {
    this.#open();
    return this.#selectAll.all().map(toTokenRecord);
  }

  async revoke(selector: TokenSelector, at: Date): Promise<RevokeResult> {
    this.#open();
    return this.#revoke.immediate(selector, at);
  }

  async findByDigest(digest: string): Promise<TokenRecord | undefined> {
    this.#open();
    let row: TokenRow | undefined;
    try {
      row = this.#selectByDigest.get(digest);
    } catch (error) {
      // The server answers 503 (and the client retries) rather than 500 on a locked file.
      throw new StoreUnavailableError(`SQLite could not look up a token: ${String(error)}`, {
        cause: error,
      });
    }
    return row === undefined ? undefined : toTokenRecord(row);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  #open(): void {
    if (this.#closed) throw new StoreUnavailableError('The token store is closed');
  }
}

function isUniqueViolation(error: unknown, column: string): boolean {
  return (
    error instanceof SqliteError &&
    error.code === 'SQLITE_CONSTRAINT_UNIQUE' &&
    error.message.includes(column)
  );
}
