import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { addressKey, clientAddress, proxyTrust, UNKNOWN_ADDRESS } from './key.ts';

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

  it('never makes a key of text that is not an IP address', () => {
    for (const text of ['', 'not-an-address', 'garbage-6782-not-an-ip', '127.1', 'x'.repeat(500)]) {
      expect(addressKey(text)).toBe(UNKNOWN_ADDRESS);
    }
  });
});

/** A request as clientAddress sees it: the socket's peer and the X-Forwarded-For header. */
function requestFrom(peer: string | undefined, forwardedFor?: string): IncomingMessage {
  const socket = new Socket(); // not connected: its peer is given here
  Object.defineProperty(socket, 'remoteAddress', { value: peer });
  const req = new IncomingMessage(socket);
  if (forwardedFor !== undefined) req.headers['x-forwarded-for'] = forwardedFor;
  return req;
}

describe('clientAddress', () => {
  const local = proxyTrust(['127.0.0.1']);

  it("is the socket's peer, X-Forwarded-For ignored, when no proxy is trusted", () => {
    expect(proxyTrust([])).toBeUndefined();
    expect(clientAddress(requestFrom('127.0.0.1', '203.0.113.7'), undefined)).toBe('127.0.0.1');
    expect(clientAddress(requestFrom(undefined), undefined)).toBe('');
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(clientAddress(requestFrom('198.51.100.9', '203.0.113.7'), local)).toBe('198.51.100.9');
    expect(clientAddress(requestFrom('127.0.0.2', '203.0.113.7'), local)).toBe('127.0.0.2');
  });

  it('from a trusted proxy, is the address it appended', () => {
    expect(clientAddress(requestFrom('127.0.0.1', '203.0.113.7'), local)).toBe('203.0.113.7');
    expect(clientAddress(requestFrom('::ffff:127.0.0.1', '203.0.113.7'), local)).toBe(
      '203.0.113.7',
    );
    expect(clientAddress(requestFrom('127.0.0.1', '2001:db8:0:1::7'), local)).toBe(
      '2001:db8:0:1::7',
    );
    expect(clientAddress(requestFrom('127.0.0.1'), local)).toBe('127.0.0.1');
  });

  it('walks right to left past trusted proxies only: what the client wrote first is not believed', () => {
    expect(clientAddress(requestFrom('127.0.0.1', '192.0.2.66, 203.0.113.7'), local)).toBe(
      '203.0.113.7',
    );
    const chain = proxyTrust(['127.0.0.1', '10.0.0.0/8']);
    expect(
      clientAddress(requestFrom('127.0.0.1', '192.0.2.66, 203.0.113.7, 10.1.2.3'), chain),
    ).toBe('203.0.113.7');
    expect(clientAddress(requestFrom('127.0.0.1', '10.9.9.9,10.1.2.3'), chain)).toBe('10.9.9.9');
    expect(clientAddress(requestFrom('::1', '203.0.113.7'), proxyTrust(['loopback']))).toBe(
      '203.0.113.7',
    );
  });

  it('never takes an entry that is not an IP address: the address a trusted proxy saw instead', () => {
    for (const bad of [
      'garbage-6782-not-an-ip',
      '203.0.113.7:4711',
      '[2001:db8::1]',
      'unknown',
      '127.1',
      '_hidden',
    ]) {
      expect(clientAddress(requestFrom('127.0.0.1', bad), local)).toBe('127.0.0.1');
    }
    const chain = proxyTrust(['127.0.0.1', '10.0.0.0/8']);
    expect(clientAddress(requestFrom('127.0.0.1', 'garbage, 10.1.2.3'), chain)).toBe('10.1.2.3');
    expect(clientAddress(requestFrom('127.0.0.1', ' , ,'), local)).toBe('127.0.0.1');
  });
});

describe('the refused-credential budget of the app, behind TRUST_PROXY=127.0.0.1', () => {
  // The proxy is 127.0.0.1; a client that reaches the port directly comes from 127.0.0.2.
  const BUDGET = 30; // AUTH_FAILURES_PER_MINUTE's default
  let server: TestApp;
  beforeAll(async () => {
    server = await createTestApp({
      trustProxy: ['127.0.0.1'],
      rateLimit: { perSecond: 1000, burst: 1000, authFailuresPerMinute: BUDGET },
    });
  });
  afterAll(() => server.dispose());

  /** The status of a create with a wrong token, from the peer `remoteAddress`. */
  async function guess(remoteAddress: string, token: string, forwardedFor: string) {
    const answer = await server.inject({
      method: 'POST',
      url: '/plants',
      remoteAddress,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'x-forwarded-for': forwardedFor,
      },
      payload: JSON.stringify({ id: 1, name: 'Fern' }),
    });
    return answer.statusCode;
  }

  async function guesses(remoteAddress: string, forwardedFor: (i: number) => string) {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      statuses.push(
        await guess(remoteAddress, `wrong-token-${i}-0123456789abcdef`, forwardedFor(i)),
      );
    }
    return statuses;
  }

  const afterBudget = [...Array(BUDGET).fill(401), ...Array(40 - BUDGET).fill(429)];

  it('a direct client claiming a new address with each of 40 bad tokens gets 429 after its budget', async () => {
    expect(await guesses('127.0.0.2', (i) => `198.51.100.${i + 1}`)).toEqual(afterBudget);
  });

  it('entries that are not addresses, even from the proxy, all count against the proxy', async () => {
    expect(await guesses('127.0.0.1', (i) => `garbage-${i}-not-an-ip`)).toEqual(afterBudget);
    // A client the proxy names is counted on its own.
    expect(await guess('127.0.0.1', 'wrong-token-x-0123456789abcdef', '203.0.113.7')).toBe(401);
    expect((await server.fetch('/healthz')).status).toBe(200);
  });
});
