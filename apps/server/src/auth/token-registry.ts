import { hash } from 'node:crypto';
import type { ManagedTokenVerifier } from './managed-token-verifier.ts';

/** A credential the server accepts, by the name it is logged under. */
export type Credential = { readonly name: string };
type ManagedTokens = Pick<ManagedTokenVerifier, 'verify' | 'recognises'>;

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

  /** The token's credential, or undefined when it is not (or no longer) valid. */
  async authenticate(token: string): Promise<Credential | undefined> {
    const digest = digestToken(token);
    return this.byDigest.get(digest) ?? this.managed?.verify(token, digest);
  }

  /**
   * Whether the token is known valid without asking the store: configured, or a managed one
   * this process verified recently (it is still checked by `authenticate`).
   */
  recognises(token: string): boolean {
    const digest = digestToken(token);
    return this.byDigest.has(digest) || (this.managed?.recognises(digest) ?? false);
  }
}
