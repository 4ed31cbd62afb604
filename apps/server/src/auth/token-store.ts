/** A managed token as stored: never the token itself, and never shown with its digest. */
export interface TokenRecord {
  readonly id: number;
  /** The consumer's name: unique among tokens that are not revoked; logged with each request. */
  readonly name: string;
  readonly createdAt: Date;
  /** `null`: never expires. */
  readonly expiresAt: Date | null;
  /** `null`: not revoked. */
  readonly revokedAt: Date | null;
}

/** What `TokenStore.insert` stores: the token's SHA-256 (hex), never the token. */
export interface NewTokenRecord {
  readonly name: string;
  readonly digest: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
}

/** Which token `TokenStore.revoke` means: by id, or the one not yet revoked with this name. */
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
 * The managed tokens, in the same database as the plants. Only SHA-256 digests are stored.
 * A name is unique among tokens that are not revoked; inserting a name whose holder has
 * expired marks that expired token revoked first (it was refused already).
 */
export interface TokenStore {
  /** Stores a new token; throws TokenNameTakenError when an active token has the name. */
  insert(token: NewTokenRecord): Promise<TokenRecord>;
  /** Every token, oldest first. */
  list(): Promise<TokenRecord[]>;
  /** Sets the revocation time of the selected token (once; a second revoke changes nothing). */
  revoke(selector: TokenSelector, at: Date): Promise<RevokeResult>;
  /** The token with this digest, revoked or expired ones included; `undefined` when none. */
  findByDigest(digest: string): Promise<TokenRecord | undefined>;
  /** Releases the database. */
  close(): Promise<void>;
}

/** A `tokens` row as both stores read it: SQLite gives the times as ISO text, pg as Dates. */
export interface TokenRow {
  readonly id: number;
  readonly name: string;
  readonly created_at: string | Date;
  readonly expires_at: string | Date | null;
  readonly revoked_at: string | Date | null;
}

/** The columns of a `TokenRow`, for the stores' SELECT and RETURNING lists. */
export const TOKEN_COLUMNS = 'id, name, created_at, expires_at, revoked_at';

/** A stored row as a `TokenRecord`. */
export function toTokenRecord(row: TokenRow): TokenRecord {
  const date = (value: string | Date | null) => (value === null ? null : new Date(value));
  return {
    id: Number(row.id),
    name: row.name,
    createdAt: new Date(row.created_at),
    expiresAt: date(row.expires_at),
    revokedAt: date(row.revoked_at),
  };
}
