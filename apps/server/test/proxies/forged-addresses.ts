// Forged client addresses, for the tests that a proxy or the server ignores them.

/**
 * Every way a client may name another address (an IPv4 `victim`) in its headers, as header
 * lines (CRLF included).
 */
export const FORGED_FORMS: readonly ((victim: string) => string)[] = [
  (victim) => `X-Forwarded-For: ${victim}\r\n`,
  (victim) => `X-Forwarded-For: ${victim}, 203.0.113.9\r\n`,
  (victim) => `X-Forwarded-For: 203.0.113.9, ${victim}\r\n`,
  (victim) => `X-Forwarded-For: ${victim}\r\nX-Forwarded-For: ${victim}\r\n`,
  (victim) => `Forwarded: for=${victim}\r\n`,
  (victim) => `Forwarded: for=${victim};proto=http, for="[2001:db8::1]"\r\n`,
  (victim) => `X-Real-IP: ${victim}\r\n`,
];
