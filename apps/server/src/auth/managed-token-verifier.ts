import { LRUCache } from 'lru-cache';
import { checkTokenFormat } from './token-format.ts';
import { type Credential, digestToken } from './token-registry.ts';
import type { TokenStore } from './token-store.ts';

/** How long a valid token is trusted without the store: a revocation takes effect within it. */
export const TOKEN_CACHE_TTL_MS = 3000;
/**
 * How long a token verified valid is recognised (`recognises`): from an address past its
 * refused-credential budget, a recognised token is still looked up and served, an unknown one
 * is refused without a lookup.
 */
export const RECOGNISED_TTL_MS = 3_600_000;
export const MAX_ENTRIES = 10_000;

/**
 * Capped caches in front of the store (a flood of random tokens cannot grow memory): a valid
 * token trusted for TOKEN_CACHE_TTL_MS (never past its expiry) and recognised for
 * RECOGNISED_TTL_MS, a refused digest for 2 s. Concurrent requests with one token share one
 * lookup (lru-cache's `fetch`).
 */
export class ManagedTokenVerifier {
  readonly #valid: LRUCache<string, Credential>;
  readonly #recognised: LRUCache<string, true>;
  readonly #refused: LRUCache<string, true>;

  constructor(private readonly store: Pick<TokenStore, 'findByDigest'>) {
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

  async verify(token: string, digest = digestToken(token)): Promise<Credential | undefined> {
    // A cached token passed the format check when it was looked up.
    const cached = this.#valid.get(digest);
    if (cached !== undefined) return cached;
    if (checkTokenFormat(token) !== 'ok' || this.#refused.has(digest)) return undefined;
    return this.#valid.fetch(digest);
  }

  /** Whether this process verified the token valid within RECOGNISED_TTL_MS. */
  recognises(digest: string): boolean {
    return this.#recognised.has(digest);
  }

  async #lookUp(digest: string, options: { ttl?: number }): Promise<Credential | undefined> {
    const record = await this.store.findByDigest(digest);
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
