import { hash } from 'node:crypto';

/** A credential the server accepts, by the name it is logged under. */
export type Credential = { readonly name: string };
/** A known token's credential, without a promise when no store is asked. */
export type Found = Credential | undefined | Promise<Credential | undefined>;
type ManagedTokens = { verify(token: string, digest: string): Found };

export function digestToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Tokens looked up by digest: the timing never tells how much of a real token was guessed. */
export class TokenRegistry {
  private constructor(
    private readonly byDigest: Map<string, Credential>,
    private readonly managed: ManagedTokens | undefined,
  ) {}

  static fromTokens(tokens: readonly string[], managed?: ManagedTokens): TokenRegistry {
    const named = tokens.map((token, i) => [digestToken(token), { name: `env#${i + 1}` }] as const);
    return new TokenRegistry(new Map(named), managed);
  }

  /** A configured token is answered without a promise: the hot path. */
  authenticate(token: string): Found {
    const digest = digestToken(token);
    return this.byDigest.get(digest) ?? this.managed?.verify(token, digest);
  }
}
