import { describe, expect, it } from 'vitest';
import { checkTokenFormat, generateToken, TOKEN_PREFIX } from './token-format.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('managed token format', () => {
  it('is the prefix, 43 secret characters and a 6-character checksum, all base64url', () => {
    const token = generateToken();
    expect(token).toHaveLength(53);
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(token).toMatch(/^pst_[A-Za-z0-9_-]{49}$/);
    expect(checkTokenFormat(token)).toBe('ok');
  });

  it('never repeats', () => {
    const tokens = new Set(Array.from({ length: 1000 }, generateToken));
    expect(tokens.size).toBe(1000);
  });

  it('catches every single-character typo in the secret and the checksum', () => {
    const token = generateToken();
    let caught = 0;
    let tried = 0;
    for (let index = TOKEN_PREFIX.length; index < token.length; index++) {
      for (const replacement of ALPHABET) {
        if (replacement === token[index]) continue;
        tried++;
        const typo = token.slice(0, index) + replacement + token.slice(index + 1);
        if (checkTokenFormat(typo) === 'checksum') caught++;
      }
    }
    expect(tried).toBe(49 * 63);
    expect(caught).toBe(tried);
  });

  it('catches swapped neighbours', () => {
    const token = generateToken();
    for (let index = TOKEN_PREFIX.length; index < token.length - 1; index++) {
      const a = token[index] ?? '';
      const b = token[index + 1] ?? '';
      if (a === b) continue;
      const swapped = token.slice(0, index) + b + a + token.slice(index + 2);
      expect(checkTokenFormat(swapped)).toBe('checksum');
    }
  });

  it('calls anything without the exact shape malformed', () => {
    const token = generateToken();
    expect(checkTokenFormat(token.slice(0, -1))).toBe('malformed');
    expect(checkTokenFormat(`${token}A`)).toBe('malformed');
    expect(checkTokenFormat(`PST_${token.slice(4)}`)).toBe('malformed');
    expect(checkTokenFormat(`${token.slice(0, 10)}+${token.slice(11)}`)).toBe('malformed');
    expect(checkTokenFormat('')).toBe('malformed');
  });
});
