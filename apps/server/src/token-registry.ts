import { createHash } from 'node:crypto';

/** A credential the server accepts, known by its SHA-256 digest and a name for the logs. */
export interface Credential {
  readonly name: string;
}

/** The SHA-256 of a token, hex: how tokens are kept and looked up. */
export function digestToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
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

  /** Registers each token of `PLANT_STORE_TOKENS`, named `env#1`, `env#2`, … */
  static fromTokens(tokens: readonly string[]): TokenRegistry {
    const registry = new TokenRegistry();
    tokens.forEach((token, index) => {
      registry.byDigest.set(digestToken(token), { name: `env#${index + 1}` });
    });
    return registry;
  }

  get size(): number {
    return this.byDigest.size;
  }

  /** The credential a token belongs to, or `undefined` for an unknown token. */
  verify(token: string): Credential | undefined {
    return this.byDigest.get(digestToken(token));
  }
}
