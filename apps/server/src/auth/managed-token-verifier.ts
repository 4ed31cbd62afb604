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
 * RECOGNISED_TTL_MS, a refused digest for 2 s.
 */
export class ManagedTokenVerifier {
  readonly #valid: LRUCache<string, { credential: Credential; expiresAt: number }>;
  readonly #recognised: LRUCache<string, true>;
  readonly #refused: LRUCache<string, true>;
  readonly #pending = new Map<string, Promise<Credential | undefined>>();

  constructor(private readonly store: Pick<TokenStore, 'findByDigest'>) {
    // Date.now, not performance.now: a token's expiry is a date (and a test's fake clock moves it).
    const cache = { max: MAX_ENTRIES, perf: { now: () => Date.now() }, ttlResolution: 0 };
    this.#valid = new LRUCache({ ...cache, ttl: TOKEN_CACHE_TTL_MS });
    this.#recognised = new LRUCache({ ...cache, ttl: RECOGNISED_TTL_MS });
    this.#refused = new LRUCache({ ...cache, ttl: 2000 });
  }

  async verify(token: string, digest = digestToken(token)): Promise<Credential | undefined> {
    // A cached token passed the format check when it was looked up.
    const cached = this.#valid.get(digest);
    if (cached !== undefined && cached.expiresAt > Date.now()) return cached.credential;
    if (checkTokenFormat(token) !== 'ok' || this.#refused.has(digest)) return undefined;
    const pending =
      this.#pending.get(digest) ?? this.#lookUp(digest).finally(() => this.#pending.delete(digest));
    this.#pending.set(digest, pending);
    return pending;
  }

  /** Whether this process verified the token valid within RECOGNISED_TTL_MS. */
  recognises(digest: string): boolean {
    return this.#recognised.has(digest);
  }

  async #lookUp(digest: string): Promise<Credential | undefined> {
    const record = await this.store.findByDigest(digest);
    const expiresAt = record?.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
    if (record === undefined || record.revokedAt !== null || expiresAt <= Date.now()) {
      this.#recognised.delete(digest);
      this.#refused.set(digest, true);
      return undefined;
    }
    const credential = { name: record.name };
    this.#valid.set(digest, { credential, expiresAt });
    this.#recognised.set(digest, true);
    return credential;
  }
}
