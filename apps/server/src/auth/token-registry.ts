import { hash } from 'node:crypto';

/** A credential the server accepts, by the name it is logged under. */
export type Credential = { readonly name: string };

/** The store's managed tokens, asked about any token the registry does not hold. */
type ManagedTokens = {
  verify(token: string, digest: string): Credential | undefined | Promise<Credential | undefined>;
};

/** The SHA-256 of a token, hex: how tokens are kept and looked up. */
export function digestToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/**
 * The accepted bearer tokens. Only their SHA-256 digests are kept, and a presented token is
 * looked up by its digest: the lookup's timing depends on the digest, never on how many
 * characters of a real token were guessed right.
 */
export class TokenRegistry {
  private constructor(
    private readonly byDigest: Map<string, Credential>,
    private readonly managed: ManagedTokens | undefined,
  ) {}

  /** The tokens of `PLANT_STORE_TOKENS`, named `env#1`, `env#2`, …, then `managed` ones. */
  static fromTokens(tokens: readonly string[], managed?: ManagedTokens): TokenRegistry {
    const named = tokens.map((token, i) => [digestToken(token), { name: `env#${i + 1}` }] as const);
    return new TokenRegistry(new Map(named), managed);
  }

  /**
   * The credential of a configured or a managed token, or `undefined`. A configured token is
   * answered without a promise: it is the hot path of every authenticated request.
   */
  authenticate(token: string): Credential | undefined | Promise<Credential | undefined> {
    const digest = digestToken(token);
    return this.byDigest.get(digest) ?? this.managed?.verify(token, digest);
  }
}
