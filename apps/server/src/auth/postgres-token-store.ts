import type pg from 'pg';
import { StoreUnavailableError } from '../store/plant-store.ts';
import { postgresOpenError, translatePostgresError } from '../store/postgres/errors.ts';
import { migratePostgres } from '../store/postgres/migrations.ts';
import { createPostgresPool, type PostgresPoolConfig } from '../store/postgres/pool.ts';
import {
  TOKEN_COLUMNS,
  TokenNameTakenError,
  type TokenRow,
  type TokenStore,
  toTokenRecord,
} from './token-store.ts';

const UNIQUE_VIOLATION = '23505';

/**
 * Options of `createPostgresTokenStore`: the plant store's URL and the PG_* settings every
 * PostgreSQL pool of the server shares (see `store/postgres/pool.ts`). The pool holds at most 2
 * connections (lookups are cached, writes are rare), never more than `poolMax`.
 */
export interface PostgresTokenStoreOptions extends PostgresPoolConfig {
  /** The plant store's `postgres://` URL. */
  readonly url: string;
}

/**
 * Opens the managed tokens of a PostgreSQL plant store on a small pool of its own, migrating
 * the database first (under the same advisory lock as the plant store), so the command-line
 * tool works before the server ever ran. Fails at once when the database cannot be reached
 * (after at most `connectTimeoutMs` for a silent one).
 *
 * @example
 * const tokens = await createPostgresTokenStore({ url: 'postgres://app:secret@db/plants' });
 * await tokens.list();
 * await tokens.close();
 */
export async function createPostgresTokenStore(
  options: PostgresTokenStoreOptions,
): Promise<TokenStore> {
  const { pool } = createPostgresPool({ ...options, role: 'tokens' });
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw postgresOpenError(error, options.url); // one line: the masked URL, why, what to do
  }
  return tokenStoreOn(pool);
}

function tokenStoreOn(pool: pg.Pool): TokenStore {
  let closed = false;
  const open = () => {
    if (closed) throw new StoreUnavailableError('The token store is closed');
  };
  const query = async (text: string, values: unknown[]): Promise<TokenRow[]> => {
    open();
    try {
      return (await pool.query<TokenRow>(text, values)).rows;
    } catch (error) {
      throw translatePostgresError(error);
    }
  };
  return {
    /** Retires an expired holder of the name and inserts, in one transaction. */
    insert: async (token) => {
      open();
      const client = await pool.connect().catch((error: unknown) => {
        throw translatePostgresError(error);
      });
      let failure: Error | undefined;
      try {
        await client.query('BEGIN');
        await client.query(
          `UPDATE tokens SET revoked_at = $1
           WHERE name = $2 AND revoked_at IS NULL AND expires_at IS NOT NULL AND expires_at <= $1`,
          [token.createdAt, token.name],
        );
        const { rows } = await client.query<TokenRow>(
          `INSERT INTO tokens (name, digest, created_at, expires_at) VALUES ($1, $2, $3, $4)
           RETURNING ${TOKEN_COLUMNS}`,
          [token.name, token.digest, token.createdAt, token.expiresAt],
        );
        await client.query('COMMIT');
        return toTokenRecord(rows[0] as TokenRow);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        const { code, constraint } = error as { code?: unknown; constraint?: unknown };
        if (code === UNIQUE_VIOLATION && constraint === 'tokens_active_name') {
          throw new TokenNameTakenError(token.name);
        }
        failure = error instanceof Error ? error : new Error(String(error));
        throw translatePostgresError(error);
      } finally {
        client.release(failure);
      }
    },
    list: async () =>
      (await query(`SELECT ${TOKEN_COLUMNS} FROM tokens ORDER BY id`, [])).map(toTokenRecord),
    revoke: async (selector, at) => {
      const [column, value] = 'id' in selector ? ['id', selector.id] : ['name', selector.name];
      const [revoked] = await query(
        `UPDATE tokens SET revoked_at = $2 WHERE ${column} = $1 AND revoked_at IS NULL
         RETURNING ${TOKEN_COLUMNS}`,
        [value, at],
      );
      if (revoked !== undefined) return { status: 'revoked', token: toTokenRecord(revoked) };
      const [latest] = await query(
        `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE ${column} = $1 ORDER BY id DESC LIMIT 1`,
        [value],
      );
      return latest === undefined
        ? { status: 'not-found' }
        : { status: 'already-revoked', token: toTokenRecord(latest) };
    },
    findByDigest: async (digest) => {
      const [row] = await query(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE digest = $1`, [digest]);
      return row === undefined ? undefined : toTokenRecord(row);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
