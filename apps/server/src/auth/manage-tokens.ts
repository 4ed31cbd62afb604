import { z } from 'zod';
import { generateToken } from './token-format.ts';
import { tokenNameProblem } from './token-name.ts';
import { digestToken } from './token-registry.ts';
import type { RevokeResult, TokenRecord, TokenSelector, TokenStore } from './token-store.ts';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** The longest lifetime a token can be given: ten years (365-day years). */
export const MAX_LIFETIME_MS = 3650 * UNIT_MS.d;

/**
 * A token lifetime (`--expires`) such as `30d`, `12h`, `90m`, `45s`, `2w` or a sum like
 * `1d12h`, in milliseconds: more than zero and at most ten years.
 *
 * @example
 * TokenLifetime.parse('1h30m'); // 5_400_000
 */
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

/** A request the token commands refuse before touching the store (bad name, duration, id). */
export class TokenUsageError extends Error {
  override readonly name = 'TokenUsageError';
}

/** What `createManagedToken` made: the token (shown once, never stored) and its record. */
export interface CreatedToken {
  readonly token: string;
  readonly record: TokenRecord;
}

/**
 * Makes a new managed token for consumer `name`, valid for `expires` (e.g. `30d`, `12h`;
 * never expires when absent), and stores only its SHA-256. Throws TokenUsageError for a bad
 * name or duration, TokenNameTakenError when an active token has the name.
 *
 * @example
 * const { token, record } = await createManagedToken(store, { name: 'acme', expires: '30d' });
 */
export async function createManagedToken(
  store: TokenStore,
  options: { readonly name: string; readonly expires?: string | undefined; readonly now?: Date },
): Promise<CreatedToken> {
  const problem = tokenNameProblem(options.name);
  if (problem !== undefined) throw new TokenUsageError(`Invalid --name: ${problem}`);
  let lifetimeMs: number | undefined;
  if (options.expires !== undefined) {
    const lifetime = TokenLifetime.safeParse(options.expires);
    if (!lifetime.success) {
      const problem = lifetime.error.issues[0]?.message;
      throw new TokenUsageError(`Invalid --expires ${JSON.stringify(options.expires)}: ${problem}`);
    }
    lifetimeMs = lifetime.data;
  }
  const now = options.now ?? new Date();
  const token = generateToken();
  const record = await store.insert({
    name: options.name,
    digest: digestToken(token),
    createdAt: now,
    expiresAt: lifetimeMs === undefined ? null : new Date(now.getTime() + lifetimeMs),
  });
  return { token, record };
}

/**
 * Reads `<id|name>` as the command line gives it: digits are an id, anything else a name
 * (names start with a letter, so the two never mix).
 *
 * @example
 * parseTokenSelector('7'); // { id: 7 }
 * parseTokenSelector('acme'); // { name: 'acme' }
 */
export function parseTokenSelector(text: string): TokenSelector {
  if (/^\d{1,15}$/.test(text)) return { id: Number(text) };
  const problem = tokenNameProblem(text);
  if (problem !== undefined) throw new TokenUsageError(`Not a token id or name: ${problem}`);
  return { name: text };
}

/**
 * Revokes the token `<id|name>` names (by name: the one not yet revoked). Servers refuse it
 * once their token cache entry lapses (a few seconds).
 *
 * @example
 * await revokeManagedToken(store, 'acme'); // { status: 'revoked', token: { id: 1, … } }
 */
export async function revokeManagedToken(
  store: TokenStore,
  idOrName: string,
  now: Date = new Date(),
): Promise<RevokeResult> {
  return store.revoke(parseTokenSelector(idOrName), now);
}

/**
 * A token's state at `now`: `active`, `expired` or `revoked` (revocation wins).
 *
 * @example
 * tokenStatus({ id: 1, name: 'acme', createdAt, expiresAt: null, revokedAt: null }); // 'active'
 */
export function tokenStatus(
  record: TokenRecord,
  now: Date = new Date(),
): 'active' | 'expired' | 'revoked' {
  if (record.revokedAt !== null) return 'revoked';
  if (record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}
