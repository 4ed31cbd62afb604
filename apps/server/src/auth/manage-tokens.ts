import { z } from 'zod';
import { generateToken } from './token-format.ts';
import { digestToken } from './token-registry.ts';
import type { TokenRecord, TokenStore } from './token-store.ts';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

export const MAX_LIFETIME_MS = 3650 * UNIT_MS.d;

/** `--expires` (`30d`, `12h`, `1d12h`) in milliseconds. */
export const TokenLifetime = z
  .string()
  .regex(
    /^(?:\d+[smhdw])+$/,
    'use a number and a unit (s, m, h, d, w), e.g. 30d, 12h, 90m or 1d12h',
  )
  .transform((text) =>
    [...text.matchAll(/(\d+)([smhdw])/g)].reduce(
      (total, [, amount, unit]) => total + Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS],
      0,
    ),
  )
  .pipe(z.number().min(1, 'must be > 0').max(MAX_LIFETIME_MS, 'at most 3650d (ten years)'));

/** Starting with a letter, a name never looks like an id or `env#1`, and is safe to log. */
export function tokenNameProblem(name: string): string | undefined {
  if (/^[A-Za-z][A-Za-z0-9._-]{0,63}$/.test(name)) return undefined;
  return `a token name starts with a letter and has at most 64 letters, digits, ".", "_" or "-" (got ${JSON.stringify(name)})`;
}

/** A mistake in a command: the usage, and exit status 2. */
export class TokenUsageError extends Error {
  override readonly name = 'TokenUsageError';
}

/** The token is returned to be shown once; only its SHA-256 is stored. */
export async function createManagedToken(
  store: TokenStore,
  options: { readonly name: string; readonly expires?: string | undefined; readonly now?: Date },
): Promise<{ token: string; record: TokenRecord }> {
  const problem = tokenNameProblem(options.name);
  if (problem !== undefined) throw new TokenUsageError(`Invalid --name: ${problem}`);
  const lifetime = TokenLifetime.optional().safeParse(options.expires);
  if (!lifetime.success) {
    const why = lifetime.error.issues[0]?.message;
    throw new TokenUsageError(`Invalid --expires ${JSON.stringify(options.expires)}: ${why}`);
  }
  const now = options.now ?? new Date();
  const token = generateToken();
  const record = await store.insert({
    name: options.name,
    digest: digestToken(token),
    createdAt: now,
    expiresAt: lifetime.data === undefined ? null : new Date(now.getTime() + lifetime.data),
  });
  return { token, record };
}

export async function revokeManagedToken(store: TokenStore, idOrName: string) {
  const now = new Date();
  if (/^\d{1,15}$/.test(idOrName)) return store.revoke({ id: Number(idOrName) }, now);
  const problem = tokenNameProblem(idOrName);
  if (problem !== undefined) throw new TokenUsageError(`Not a token id or name: ${problem}`);
  return store.revoke({ name: idOrName }, now);
}

export function tokenStatus(record: TokenRecord, now = new Date()) {
  if (record.revokedAt !== null) return 'revoked';
  if (record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}
