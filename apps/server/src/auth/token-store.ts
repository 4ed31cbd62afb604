import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { DatabaseHandle } from '../store/database.ts';
import { errorCode, StoreUnavailableError } from '../store/plant-store.ts';
import { translatePostgresError } from '../store/postgres/errors.ts';

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

type Time = string | Date; // SQLite keeps ISO text; pg reads timestamptz as a Date
type TokenRow = {
  id: number;
  name: string;
  created_at: Time;
  expires_at: Time | null;
  revoked_at: Time | null;
};
/** SQL with `$1`, `$2`… parameters (times as ISO text); each statement is atomic on its own. */
type Query = (sql: string, values: readonly (string | number | null)[]) => Promise<TokenRow[]>;

const COLUMNS = 'id, name, created_at, expires_at, revoked_at';
const SELECT = `SELECT ${COLUMNS} FROM tokens`;
const RETIRE_EXPIRED = `UPDATE tokens SET revoked_at = $1
  WHERE name = $2 AND revoked_at IS NULL AND expires_at IS NOT NULL AND expires_at <= $1
  RETURNING ${COLUMNS}`;
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
 * A unique index refused the row, as SQLite and PostgreSQL say it: the active names' (the digests'
 * would take two equal random 256-bit tokens).
 */
const isUniqueViolation = (error: unknown) =>
  ['SQLITE_CONSTRAINT_UNIQUE', '23505'].includes(errorCode(error) ?? '');

/**
 * The managed tokens on the process's database handle (closed with it). A failed look-up is a
 * StoreUnavailableError (503: the client retries), never a 500.
 */
export function tokenStore(handle: DatabaseHandle) {
  const run = handle.kind === 'sqlite' ? sqliteQuery(handle.db) : postgresQuery(handle.pool);
  return {
    // Revokes the name's expired holder first (the one holder a name can have, so an insert after
    // it cannot find the name taken but by a concurrent create); TokenNameTakenError when active.
    insert: async ({ name, digest, createdAt, expiresAt }: NewTokenRecord) => {
      const now = createdAt.toISOString();
      await run(RETIRE_EXPIRED, [now, name]);
      const inserted = run(INSERT, [name, digest, now, expiresAt?.toISOString() ?? null]);
      const [row] = await inserted.catch((error: unknown) => {
        throw isUniqueViolation(error) ? new TokenNameTakenError(name) : error;
      });
      return toRecord(row as TokenRow);
    },
    list: async () => (await run(`${SELECT} ORDER BY id`, [])).map(toRecord),
    // The token with this id, or the name's active one; failing that, the latest says why not.
    revoke: async (selector: { id: number } | { name: string }, at: Date) => {
      const [column, value] =
        'id' in selector ? (['id', selector.id] as const) : (['name', selector.name] as const);
      const [revoked] = await run(REVOKE(column), [at.toISOString(), value]);
      if (revoked) return { status: 'revoked' as const, token: toRecord(revoked) };
      const latestSql = `${SELECT} WHERE ${column} = $1 ORDER BY id DESC LIMIT 1`;
      const [latest] = await run(latestSql, [value]);
      if (latest) return { status: 'already-revoked' as const, token: toRecord(latest) };
      return { status: 'not-found' as const };
    },
    findByDigest: async (digest: string) => {
      const [row] = await run(`${SELECT} WHERE digest = $1`, [digest]).catch((error: unknown) => {
        if (error instanceof StoreUnavailableError) throw error;
        throw new StoreUnavailableError(`Could not look up a token: ${String(error)}`, {
          cause: error,
        });
      });
      return row === undefined ? undefined : toRecord(row);
    },
  };
}

/** Each statement prepared once; `$1`… are SQLite's named parameters `1`…. */
function sqliteQuery(db: BetterSqlite3.Database): Query {
  const prepared = new Map<string, BetterSqlite3.Statement>();
  return async (sql, values) => {
    const statement = prepared.get(sql) ?? db.prepare(sql);
    prepared.set(sql, statement);
    const parameters = Object.fromEntries(values.map((value, i) => [i + 1, value]));
    return statement.all(parameters) as TokenRow[]; // every statement returns rows
  };
}

function postgresQuery(pool: pg.Pool): Query {
  return async (sql, values) => {
    const result = await pool.query<TokenRow>(sql, [...values]).catch((error: unknown) => {
      throw translatePostgresError(error);
    });
    return result.rows;
  };
}
