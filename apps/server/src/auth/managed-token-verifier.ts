import { LRUCache } from 'lru-cache';
import { checkTokenFormat } from './token-format.ts';
import { type Credential, digestToken } from './token-registry.ts';
import type { TokenStore } from './token-store.ts';

/** How long a valid token is trusted without asking the store again: a revocation takes effect within it. */
export const TOKEN_CACHE_TTL_MS = 3000;

/**
 * Checks managed (`pst_…`) tokens against the token store, with a short-lived cache in front:
 * - a token with a bad shape or checksum is refused without a lookup;
 * - a valid token is trusted for 3 s, never past its expiry, so a revocation reaches every
 *   instance within that time and an expiry takes effect on the dot;
 * - an unknown, revoked or expired digest is refused from memory for 2 s;
 * - both caches are capped (least recently used go first), so a flood of random tokens cannot
 *   grow memory, and concurrent requests with one token share one lookup.
 */
export class ManagedTokenVerifier {
  readonly #store: Pick<TokenStore, 'findByDigest'>;
  readonly #now: () => number;
  readonly #valid: LRUCache<string, { credential: Credential; expiresAt: number }>;
  readonly #refused: LRUCache<string, true>;
  readonly #pending = new Map<string, Promise<Credential | undefined>>();

  /** `maxEntries` caps each cache; `now` is the clock (ms since the epoch). */
  constructor(
    store: Pick<TokenStore, 'findByDigest'>,
    { maxEntries = 10_000, now = Date.now } = {},
  ) {
    this.#store = store;
    this.#now = now;
    // The same clock as the expiry checks, read at every lookup (ttlResolution 0).
    const cache = { max: maxEntries, perf: { now }, ttlResolution: 0 };
    this.#valid = new LRUCache({ ...cache, ttl: TOKEN_CACHE_TTL_MS });
    this.#refused = new LRUCache({ ...cache, ttl: 2000 });
  }

  /** The credential of a valid (known, not revoked, not expired) managed token, else `undefined`. */
  verify(
    token: string,
    digest = digestToken(token),
  ): Credential | undefined | Promise<Credential | undefined> {
    if (checkTokenFormat(token) !== 'ok') return undefined;
    const cached = this.#valid.get(digest);
    if (cached !== undefined && cached.expiresAt > this.#now()) return cached.credential;
    if (this.#refused.has(digest)) return undefined;
    const pending =
      this.#pending.get(digest) ?? this.#lookUp(digest).finally(() => this.#pending.delete(digest));
    this.#pending.set(digest, pending);
    return pending;
  }

  async #lookUp(digest: string): Promise<Credential | undefined> {
    const record = await this.#store.findByDigest(digest);
    const expiresAt = record?.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
    if (record === undefined || record.revokedAt !== null || expiresAt <= this.#now()) {
      this.#refused.set(digest, true);
      return undefined;
    }
    const credential = { name: record.name };
    this.#valid.set(digest, { credential, expiresAt });
    return credential;
  }
}
