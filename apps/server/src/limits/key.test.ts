import { describe, expect, it } from 'vitest';
import { addressKey, boundedKey } from './key.ts';

describe('addressKey', () => {
  it('keeps IPv4 addresses, also IPv4-mapped ones', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::FFFF:127.0.0.1')).toBe('127.0.0.1');
  });

  it('groups IPv6 addresses by their /64 network, however they are written', () => {
    const key = '2001:db8:0:1::/64';
    expect(addressKey('2001:db8:0:1::1')).toBe(key);
    expect(addressKey('2001:0db8:0000:0001:ffff:ffff:ffff:ffff')).toBe(key);
    expect(addressKey('2001:DB8:0:1:a:b:c:d')).toBe(key);
    expect(addressKey('2001:db8:0:1::1%eth0')).toBe(key);
    expect(addressKey('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1:2.3.4.5')).toBe('fe80:0:0:0::/64');
  });

  it('keeps anything else as it is, bounded', () => {
    expect(addressKey('')).toBe('');
    expect(addressKey('not-an-address')).toBe('not-an-address');
    expect(addressKey('x'.repeat(500))).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('boundedKey', () => {
  it('keeps short keys and digests long ones', () => {
    expect(boundedKey('env#1')).toBe('env#1');
    expect(boundedKey('n'.repeat(200))).toBe('n'.repeat(200));
    const long = boundedKey('n'.repeat(201));
    expect(long).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(long.length).toBeLessThan(255);
    expect(boundedKey('n'.repeat(201))).toBe(long);
    expect(boundedKey('m'.repeat(201))).not.toBe(long);
  });
});
