import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** Every managed token starts with this, so it is recognisable in a config file or a leak scan. */
export const TOKEN_PREFIX = 'pst_';

const SECRET_BYTES = 32;
/** 32 bytes in base64url, without padding. */
const SECRET_CHARS = 43;
/** A CRC32 (4 bytes) in base64url, without padding. */
const CHECKSUM_CHARS = 6;
const TOKEN_SHAPE = new RegExp(
  `^${TOKEN_PREFIX}[A-Za-z0-9_-]{${SECRET_CHARS}}[A-Za-z0-9_-]{${CHECKSUM_CHARS}}$`,
);

/** The length of every managed token: prefix, secret, checksum. */
export const TOKEN_LENGTH = TOKEN_PREFIX.length + SECRET_CHARS + CHECKSUM_CHARS;

/**
 * What a presented string is, as far as can be told without a store lookup:
 * - `ok`: a well-formed managed token whose checksum matches (it may still be unknown);
 * - `malformed`: not the managed token shape (wrong length or characters);
 * - `checksum`: the shape is right but the checksum does not match (a typo or a truncation).
 */
export type TokenFormatCheck = 'ok' | 'malformed' | 'checksum';

/**
 * A new managed token: `pst_` + 32 random bytes (base64url, 43 characters) + a CRC32 of the
 * preceding characters (base64url, 6 characters); 53 characters in all.
 *
 * @example
 * const token = generateToken(); // 'pst_q3V…Xb0' (53 characters)
 * checkTokenFormat(token); // 'ok'
 */
export function generateToken(): string {
  const body = TOKEN_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
  return body + checksumOf(body);
}

/**
 * Checks a presented token's shape and checksum, without any lookup: a typo in any one
 * character (the checksum covers the prefix and every character of the secret, as text) is
 * caught here.
 *
 * @example
 * checkTokenFormat(generateToken()); // 'ok'
 * checkTokenFormat('pst_short'); // 'malformed'
 */
export function checkTokenFormat(token: string): TokenFormatCheck {
  if (!TOKEN_SHAPE.test(token)) return 'malformed';
  const split = token.length - CHECKSUM_CHARS;
  return checksumOf(token.slice(0, split)) === token.slice(split) ? 'ok' : 'checksum';
}

function checksumOf(text: string): string {
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc32(text), 0);
  return sum.toString('base64url');
}
