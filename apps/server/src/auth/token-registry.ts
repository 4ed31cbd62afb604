import { hash } from 'node:crypto';

/** A credential the server accepts, known by its SHA-256 digest and a name for the logs. */
export interface Credential {
  readonly name: string;
}

/** Tokens kept outside the registry (the store's managed tokens), checked after its own. */
export interface ManagedTokens {
  /** `digest` is `digestToken(token)`, worked out once per request by the registry. */
  verify(token: string, digest?: string): Promise<Credential | undefined>;
}

/** The SHA-256 of a token, hex: how tokens are kept and looked up. */
export function digestToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/**
 * The accepted bearer tokens. Only their SHA-256 digests are kept, and a presented token is
 * looked up by its digest: the lookup's timing depends on the digest, never on how many
 * characters of a real token were guessed right.
 *
 * @example
 * const tokens = TokenRegistry.fromTokens(['s3cret-token-0123456789']);
 * tokens.verify('s3cret-token-0123456789'); // { name: 'env#1' }
 */
export class TokenRegistry {
  private readonly byDigest = new Map<string, Credential>();
  private managed: ManagedTokens | undefined;

  /**
   * Registers each token of `PLANT_STORE_TOKENS`, named `env#1`, `env#2`, …; `managed` (the
   * store's tokens) is asked by `authenticate` for any other token.
   */
  static fromTokens(tokens: readonly string[], managed?: ManagedTokens): TokenRegistry {
    const registry = new TokenRegistry();
    registry.managed = managed;
    tokens.forEach((token, index) => {
      registry.byDigest.set(digestToken(token), { name: `env#${index + 1}` });
    });
    return registry;
  }

  /** The credential a configured token belongs to, or `undefined` for an unknown token. */
  verify(token: string): Credential | undefined {
    return this.byDigest.get(digestToken(token));
  }

  /**
   * The credential of a configured or a managed token, or `undefined` when neither accepts it.
   * A configured token is answered at once (no promise: it is the hot path of every
   * authenticated request); only a token the registry does not hold asks the managed tokens,
   * and that answer is a promise.
   *
   * @example
   * await TokenRegistry.fromTokens([], managedTokens).authenticate('pst_…'); // { name: 'acme' }
   */
  authenticate(token: string): Credential | undefined | Promise<Credential | undefined> {
    const digest = digestToken(token);
    return this.byDigest.get(digest) ?? this.managed?.verify(token, digest);
  }
}
