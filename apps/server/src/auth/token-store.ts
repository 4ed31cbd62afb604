import { StoreUnavailableError } from '../store/plant-store.ts';

/** A managed token as stored: never the token itself, and never shown with its digest. */
export interface TokenRecord {
  readonly id: number;
  /** The consumer's name: unique among tokens that are not revoked; logged with each request. */
  readonly name: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
}

/** What `TokenStore.insert` stores: the token's SHA-256 (hex), never the token. */
export type NewTokenRecord = Omit<TokenRecord, 'id' | 'revokedAt'> & { readonly digest: string };

export type TokenSelector = { readonly id: number } | { readonly name: string };

/** What `revoke` did. `already-revoked` changed nothing; `not-found` matched no token. */
export type RevokeResult =
  | { readonly status: 'revoked' | 'already-revoked'; readonly token: TokenRecord }
  | { readonly status: 'not-found' };

/** `insert` refused the name: a token that is not revoked (and not expired) already has it. */
export class TokenNameTakenError extends Error {
  override readonly name = 'TokenNameTakenError';
  constructor(readonly tokenName: string) {
    super(
      `A token named ${JSON.stringify(tokenName)} is already active; revoke it first or choose another name`,
    );
  }
}

/**
 * The managed tokens, in the same database as the plants; only SHA-256 digests are stored.
 * Inserting a name whose holder has expired revokes that token first.
 */
export interface TokenStore {
  /** Throws TokenNameTakenError when an active token has the name. */
  insert(token: NewTokenRecord): Promise<TokenRecord>;
  /** Every token, oldest first. */
  list(): Promise<TokenRecord[]>;
  /** Revokes the token with this id, or the one not yet revoked with this name; only once. */
  revoke(selector: TokenSelector, at: Date): Promise<RevokeResult>;
  /** The token with this digest, revoked or expired ones included. */
  findByDigest(digest: string): Promise<TokenRecord | undefined>;
  close(): Promise<void>;
}

/** One statement: SQL with `$1`, `$2`… parameters, and their values (times as ISO text). */
export type Statement = readonly [sql: string, values: readonly (string | number | null)[]];

/** A `tokens` row: SQLite gives the times as ISO text, pg as Dates. */
export interface TokenRow {
  readonly id: number;
  readonly name: string;
  readonly created_at: string | Date;
  readonly expires_at: string | Date | null;
  readonly revoked_at: string | Date | null;
}

/** What each database adds to the store below. */
export interface TokenSql {
  /** Runs the statements (more than one: in one transaction) and gives the rows of each. */
  run(statements: readonly Statement[]): Promise<TokenRow[][]>;
  /** True when `error` is the unique index of active names refusing an insert. */
  isNameTaken(error: unknown): boolean;
  /** What a failed digest lookup becomes, unless it is a StoreUnavailableError already. */
  lookUpError?(error: unknown): unknown;
  close(): Promise<void>;
}

const COLUMNS = 'id, name, created_at, expires_at, revoked_at';
const SELECT = `SELECT ${COLUMNS} FROM tokens`;
const RETIRE_EXPIRED = `UPDATE tokens SET revoked_at = $1
  WHERE name = $2 AND revoked_at IS NULL AND expires_at IS NOT NULL AND expires_at <= $1`;
const INSERT = `INSERT INTO tokens (name, digest, created_at, expires_at) VALUES ($1, $2, $3, $4)
  RETURNING ${COLUMNS}`;
const REVOKE = (column: 'id' | 'name') =>
  `UPDATE tokens SET revoked_at = $1 WHERE ${column} = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}`;

const date = (value: string | Date | null) => (value === null ? null : new Date(value));
const toRecord = (row: TokenRow): TokenRecord => ({
  id: Number(row.id),
  name: row.name,
  createdAt: new Date(row.created_at),
  expiresAt: date(row.expires_at),
  revokedAt: date(row.revoked_at),
});

/** The token store on either database: the same statements, run by `sql`. */
export function sqlTokenStore(sql: TokenSql): TokenStore {
  let closed = false;
  const run = async (...statements: Statement[]) => {
    if (closed) throw new StoreUnavailableError('The token store is closed');
    return sql.run(statements);
  };
  return {
    insert: async ({ name, digest, createdAt, expiresAt }) => {
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
    // The token not yet revoked is revoked; failing that, the latest one says why not.
    revoke: async (selector, at) => {
      const [column, value] =
        'id' in selector ? (['id', selector.id] as const) : (['name', selector.name] as const);
      const [[revoked] = [], [latest] = []] = await run(
        [REVOKE(column), [at.toISOString(), value]],
        [`${SELECT} WHERE ${column} = $1 ORDER BY id DESC LIMIT 1`, [value]],
      );
      if (revoked !== undefined) return { status: 'revoked', token: toRecord(revoked) };
      if (latest !== undefined) return { status: 'already-revoked', token: toRecord(latest) };
      return { status: 'not-found' };
    },
    findByDigest: async (digest) => {
      const lookUp = run([`${SELECT} WHERE digest = $1`, [digest]]);
      const [[row] = []] = await lookUp.catch((error: unknown) => {
        if (error instanceof StoreUnavailableError) throw error;
        throw sql.lookUpError?.(error) ?? error;
      });
      return row === undefined ? undefined : toRecord(row);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await sql.close();
    },
  };
}
