import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestToken } from '../../src/auth/token-registry.ts';
import { TokenNameTakenError, type TokenStore } from '../../src/auth/token-store.ts';

/** Opens a fresh, empty token store for one test; `dispose` closes and removes it. */
export type OpenTokenStore = () => Promise<{ store: TokenStore; dispose(): Promise<void> }>;

const T0 = new Date('2030-01-01T00:00:00.000Z');
const later = (ms: number) => new Date(T0.getTime() + ms);

/**
 * The behaviour every TokenStore has (SQLite and PostgreSQL run the same tests).
 *
 * @example
 * describeTokenStore('SQLite', async () => ({ store, dispose }));
 */
export function describeTokenStore(label: string, open: OpenTokenStore): void {
  describe(`${label} token store`, () => {
    let store: TokenStore;
    let dispose: () => Promise<void>;
    beforeEach(async () => {
      ({ store, dispose } = await open());
    });
    afterEach(async () => {
      await dispose();
    });

    const insert = (name: string, secret: string, expiresAt: Date | null = null) =>
      store.insert({ name, digest: digestToken(secret), createdAt: T0, expiresAt });

    it('stores a token with its times and finds it by digest only', async () => {
      const record = await insert('acme', 'secret-1', later(60_000));
      expect(record).toEqual({
        id: expect.any(Number),
        name: 'acme',
        createdAt: T0,
        expiresAt: later(60_000),
        revokedAt: null,
      });
      expect(await store.findByDigest(digestToken('secret-1'))).toEqual(record);
      expect(await store.findByDigest(digestToken('secret-2'))).toBeUndefined();
      expect(await store.list()).toEqual([record]);
    });

    it('keeps a name unique among tokens that are not revoked', async () => {
      const first = await insert('acme', 'secret-1');
      await expect(insert('acme', 'secret-2')).rejects.toThrow(TokenNameTakenError);
      await store.revoke({ id: first.id }, later(1000));
      const second = await insert('acme', 'secret-2');
      expect(second.id).toBeGreaterThan(first.id);
      expect((await store.list()).map((t) => [t.name, t.revokedAt])).toEqual([
        ['acme', later(1000)],
        ['acme', null],
      ]);
    });

    it('retires an expired holder of the name when the name is reused', async () => {
      const expired = await insert('acme', 'secret-1', later(-1));
      const fresh = await insert('acme', 'secret-2');
      const retired = await store.findByDigest(digestToken('secret-1'));
      expect(retired?.revokedAt).toEqual(T0);
      expect(fresh.revokedAt).toBeNull();
      expect(retired?.id).toBe(expired.id);
    });

    it('revokes by id or by name, once', async () => {
      const a = await insert('acme', 'secret-1');
      const b = await insert('globex', 'secret-2');
      expect(await store.revoke({ id: a.id }, later(5))).toEqual({
        status: 'revoked',
        token: { ...a, revokedAt: later(5) },
      });
      expect(await store.revoke({ id: a.id }, later(9))).toEqual({
        status: 'already-revoked',
        token: { ...a, revokedAt: later(5) },
      });
      expect(await store.revoke({ name: 'globex' }, later(7))).toEqual({
        status: 'revoked',
        token: { ...b, revokedAt: later(7) },
      });
      expect((await store.revoke({ name: 'globex' }, later(8))).status).toBe('already-revoked');
      expect(await store.revoke({ name: 'nobody' }, later(8))).toEqual({ status: 'not-found' });
      expect(await store.revoke({ id: 999_999 }, later(8))).toEqual({ status: 'not-found' });
      expect((await store.findByDigest(digestToken('secret-1')))?.revokedAt).toEqual(later(5));
    });

    it('lets one of many concurrent creates with one name win', async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => insert('race', `secret-${i}`)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(TokenNameTakenError);
      }
      expect(await store.list()).toHaveLength(1);
    });
  });
}
