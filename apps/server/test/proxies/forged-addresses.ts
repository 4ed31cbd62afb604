// Forged client addresses, for the tests that a proxy or the server ignores them.

/**
 * Every way a client may name another address in its headers, as header lines (CRLF included);
 * `n` varies the address named (198.51.100.n).
 */
export const FORGED_FORMS: readonly ((n: number) => string)[] = [
  (n) => `X-Forwarded-For: 198.51.100.${n}\r\n`,
  (n) => `X-Forwarded-For: 198.51.100.${n}, 203.0.113.9\r\n`,
  (n) => `X-Forwarded-For: 198.51.100.${n}\r\nX-Forwarded-For: 203.0.113.9\r\n`,
  (n) => `Forwarded: for=198.51.100.${n}\r\n`,
  (n) => `Forwarded: for=198.51.100.${n};proto=http, for="[2001:db8::${n}]"\r\n`,
  (n) => `X-Real-IP: 198.51.100.${n}\r\n`,
];
