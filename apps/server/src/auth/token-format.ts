import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** Recognisable in a config file or a leak scan. */
export const TOKEN_PREFIX = 'pst_';
/** The prefix, then 32 random bytes (43 characters) and a CRC32 of what precedes (6): base64url. */
const TOKEN_SHAPE = new RegExp(`^${TOKEN_PREFIX}[A-Za-z0-9_-]{49}$`);

const checksumOf = (text: string) => {
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc32(text));
  return sum.toString('base64url');
};

export function generateToken(): string {
  const body = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return body + checksumOf(body);
}

/** `checksum`: a typo or truncation, refused without a lookup. */
export function checkTokenFormat(token: string): 'ok' | 'malformed' | 'checksum' {
  if (!TOKEN_SHAPE.test(token)) return 'malformed';
  const split = token.length - 6;
  return checksumOf(token.slice(0, split)) === token.slice(split) ? 'ok' : 'checksum';
}
