import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { DatabaseHandle } from '../store/database.ts';
import { StoreUnavailableError } from '../store/plant-store.ts';
import { postgresCode, translatePostgresError } from '../store/postgres/errors.ts';
import { SqliteError } from '../store/sqlite/driver.ts';

/** A managed token as stored: never the token itself, nor shown with its digest. */
export interface TokenRecord {
  readonly id: number;
  readonly name: string; // unique among the tokens not revoked
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
}

type NewTokenRecord = Omit<TokenRecord, 'id' | 'revokedAt'> & { readonly digest: string };

export class TokenNameTakenError extends Error {
  override readonly name = 'TokenNameTakenError';
  constructor(readonly tokenName: string) {
    super(
      `A token named ${JSON.stringify(tokenName)} is already active; revoke it first or choose another name`,
    );
  }
}

export type TokenStore = ReturnType<typeof tokenStore>;

/** SQL with `$1`, `$2`… parameters and their values (times as ISO text; pg reads Dates). */
type Statement = readonly [sql: string, values: readonly (string | number | null)[]];
type Time = string | Date;
type TokenRow = {
  id: number;
  name: string;
  created_at: Time;
  expires_at: Time | null;
  revoked_at: Time | null;
};

const COLUMNS = 'id, name, created_at, expires_at, revoked_at';
const SELECT = `SELECT ${COLUMNS} FROM tokens`;
const RETIRE_EXPIRED = `UPDATE tokens SET revoked_at = $1
  WHERE name = $2 AND revoked_at IS NULL AND expires_at IS NOT NULL AND expires_at <= $1`;
const INSERT = `INSERT INTO tokens (name, digest, created_at, expires_at) VALUES ($1, $2, $3, $4)
  RETURNING ${COLUMNS}`;
const REVOKE = (column: 'id' | 'name') =>
  `UPDATE tokens SET revoked_at = $1 WHERE ${column} = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}`;

const date = (value: Time | null) => (value === null ? null : new Date(value));
const toRecord = (row: TokenRow): TokenRecord => ({
  id: Number(row.id),
  name: row.name,
  createdAt: new Date(row.created_at),
  expiresAt: date(row.expires_at),
  revokedAt: date(row.revoked_at),
});

/**
 * The managed tokens on the process's database handle, which closing the store leaves open. A
 * failed look-up is a StoreUnavailableError (503: the client retries), never a 500.
 * @example
 * const tokens = tokenStore(await openDatabaseHandle(config.database));
 */
export function tokenStore(handle: DatabaseHandle) {
  const sql = handle.kind === 'sqlite' ? sqliteTokens(handle.db) : postgresTokens(handle.pool);
  let closed = false;
  // More than one statement: in one transaction.
  const run = async (...statements: Statement[]) => {
    if (closed) throw new StoreUnavailableError('The token store is closed');
    return sql.run(statements);
  };
  return {
    // Revokes the name's expired holder first; TokenNameTakenError when an active one has it.
    insert: async ({ name, digest, createdAt, expiresAt }: NewTokenRecord) => {
      const now = createdAt.toISOString();
      const expires = expiresAt?.toISOString() ?? null;
      try {
        const [, [row] = []] = await run(
          [RETIRE_EXPIRED, [now, name]],
          [INSERT, [name, digest, now, expires]],
        );
        return toRecord(row as TokenRow);
      } catch (error) {
        throw sql.isNameTaken(error) ? new TokenNameTakenError(name) : error;
      }
    },
    list: async () => {
      const [rows = []] = await run([`${SELECT} ORDER BY id`, []]);
      return rows.map(toRecord);
    },
    // The token with this id, or the name's active one; failing that, the latest says why not.
    revoke: async (selector: { id: number } | { name: string }, at: Date) => {
      const [column, value] =
        'id' in selector ? (['id', selector.id] as const) : (['name', selector.name] as const);
      const [[revoked] = [], [latest] = []] = await run(
        [REVOKE(column), [at.toISOString(), value]],
        [`${SELECT} WHERE ${column} = $1 ORDER BY id DESC LIMIT 1`, [value]],
      );
      if (revoked) return { status: 'revoked' as const, token: toRecord(revoked) };
      if (latest) return { status: 'already-revoked' as const, token: toRecord(latest) };
      return { status: 'not-found' as const };
    },
    findByDigest: async (digest: string) => {
      const lookUp = run([`${SELECT} WHERE digest = $1`, [digest]]);
      const [[row] = []] = await lookUp.catch((error: unknown) => {
        if (error instanceof StoreUnavailableError) throw error;
        throw new StoreUnavailableError(`Could not look up a token: ${String(error)}`, {
          cause: error,
        });
      });
      return row === undefined ? undefined : toRecord(row);
    },
    close: async () => {
      closed = true;
    },
  };
}

/** Each statement prepared once; `$1`… are SQLite's named parameters `1`…. */
function sqliteTokens(db: BetterSqlite3.Database) {
  const prepared = new Map<string, BetterSqlite3.Statement>();
  const all = ([sql, values]: Statement) => {
    const statement = prepared.get(sql) ?? db.prepare(sql);
    prepared.set(sql, statement);
    const parameters = Object.fromEntries(values.map((value, i) => [i + 1, value]));
    if (statement.reader) return statement.all(parameters) as TokenRow[];
    statement.run(parameters);
    return [];
  };
  const transaction = db.transaction((statements: readonly Statement[]) => statements.map(all));
  return {
    run: async (statements: readonly Statement[]) =>
      statements.length === 1 ? statements.map(all) : transaction.immediate(statements),
    isNameTaken: (error: unknown) =>
      error instanceof SqliteError &&
      error.code === 'SQLITE_CONSTRAINT_UNIQUE' &&
      error.message.includes('tokens.name'),
  };
}

function postgresTokens(pool: pg.Pool) {
  const fail = (error: unknown) => {
    throw translatePostgresError(error);
  };
  const query = async (on: pg.Pool | pg.PoolClient, [sql, values]: Statement) =>
    (await on.query<TokenRow>(sql, [...values])).rows;
  const isNameTaken = (error: unknown) =>
    postgresCode(error) === '23505' &&
    (error as { constraint?: unknown }).constraint === 'tokens_active_name';
  return {
    isNameTaken,
    run: async (statements: readonly Statement[]) => {
      if (statements.length === 1) {
        return Promise.all(statements.map((s) => query(pool, s))).catch(fail);
      }
      const client = await pool.connect().catch(fail);
      try {
        await client.query('BEGIN');
        const rows: TokenRow[][] = [];
        for (const statement of statements) rows.push(await query(client, statement));
        await client.query('COMMIT');
        client.release();
        return rows;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        // A refused name leaves the connection usable; after any other failure it is dropped.
        client.release(!isNameTaken(error));
        throw translatePostgresError(error);
      }
    },
  };
}
