import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** Every managed token starts with this, so it is recognisable in a config file or a leak scan. */
export const TOKEN_PREFIX = 'pst_';
/** The prefix, 32 random bytes and a CRC32 of both, in base64url (43 and 6 characters). */
export const TOKEN_LENGTH = TOKEN_PREFIX.length + 43 + 6;
const TOKEN_SHAPE = new RegExp(`^${TOKEN_PREFIX}[A-Za-z0-9_-]{49}$`);

const checksumOf = (text: string) => {
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc32(text));
  return sum.toString('base64url');
};

/** A new managed token (53 characters): `pst_`, 32 random bytes, a CRC32 of what precedes. */
export function generateToken(): string {
  const body = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return body + checksumOf(body);
}

/**
 * `ok` for a well-formed token whose checksum matches (it may still be unknown), `malformed`
 * for another shape, `checksum` for a typo or truncation: no lookup needed to refuse those.
 */
export function checkTokenFormat(token: string): 'ok' | 'malformed' | 'checksum' {
  if (!TOKEN_SHAPE.test(token)) return 'malformed';
  const split = token.length - 6;
  return checksumOf(token.slice(0, split)) === token.slice(split) ? 'ok' : 'checksum';
}
