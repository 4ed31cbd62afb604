import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { checkTokenFormat } from './token-format.ts';
import type { TokenStore } from './token-store.ts';

/** How long a valid managed token is trusted without the store: a revocation takes effect within it. */
export const TOKEN_CACHE_TTL_MS = 3000;
/**
 * How long a managed token verified valid is recognised (`recognises`): from an address past its
 * refused-credential budget, a recognised token is still looked up and served, an unknown one
 * is refused without a lookup.
 */
export const RECOGNISED_TTL_MS = 3_600_000;
export const MAX_ENTRIES = 10_000;

/** A credential the server accepts, by the name it is logged under. */
export type Credential = { readonly name: string };

export function digestToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/**
 * The configured tokens (named `env#1`, `env#2`… by position) and the managed ones in `store`,
 * looked up by digest: the timing never tells how much of a real token was guessed. Capped
 * caches stand in front of the store (a flood of random tokens cannot grow memory): a valid
 * token trusted for TOKEN_CACHE_TTL_MS (never past its expiry) and recognised for
 * RECOGNISED_TTL_MS, a refused digest for 2 s. Concurrent requests with one token share one
 * lookup (lru-cache's `fetch`).
 */
export class TokenRegistry {
  private readonly configured: Map<string, Credential>;
  readonly #valid: LRUCache<string, Credential>;
  readonly #recognised: LRUCache<string, true>;
  readonly #refused: LRUCache<string, true>;

  constructor(
    tokens: readonly string[],
    private readonly store?: Pick<TokenStore, 'findByDigest'>,
  ) {
    this.configured = new Map(
      tokens.map((token, i) => [digestToken(token), { name: `env#${i + 1}` }]),
    );
    // Date.now, not performance.now: a token's expiry is a date (and a test's fake clock moves it).
    const cache = { max: MAX_ENTRIES, perf: { now: () => Date.now() }, ttlResolution: 0 };
    this.#valid = new LRUCache<string, Credential>({
      ...cache,
      ttl: TOKEN_CACHE_TTL_MS,
      fetchMethod: (digest, _stale, { options }) => this.#lookUp(digest, options),
    });
    this.#recognised = new LRUCache({ ...cache, ttl: RECOGNISED_TTL_MS });
    this.#refused = new LRUCache({ ...cache, ttl: 2000 });
  }

  /** The token's credential, or undefined when it is not (or no longer) valid. */
  async authenticate(token: string): Promise<Credential | undefined> {
    const digest = digestToken(token);
    // A cached token passed the format check when it was looked up.
    const known = this.configured.get(digest) ?? this.#valid.get(digest);
    if (known !== undefined || this.store === undefined) return known;
    if (checkTokenFormat(token) !== 'ok' || this.#refused.has(digest)) return undefined;
    return this.#valid.fetch(digest);
  }

  /**
   * Whether the token is known valid without asking the store: configured, or a managed one
   * verified within RECOGNISED_TTL_MS (it is still checked by `authenticate`).
   */
  recognises(token: string): boolean {
    const digest = digestToken(token);
    return this.configured.has(digest) || this.#recognised.has(digest);
  }

  async #lookUp(digest: string, options: { ttl?: number }): Promise<Credential | undefined> {
    const record = await this.store?.findByDigest(digest);
    const left = (record?.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY) - Date.now();
    if (record === undefined || record.revokedAt !== null || left <= 0) {
      this.#recognised.delete(digest);
      this.#refused.set(digest, true);
      return undefined;
    }
    // Kept while younger than its ttl, so never into the token's last millisecond.
    options.ttl = Math.min(TOKEN_CACHE_TTL_MS, left - 1);
    this.#recognised.set(digest, true);
    return { name: record.name };
  }
}
