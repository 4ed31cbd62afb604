import pino, { type Logger } from 'pino';

/**
 * The service's logger: structured JSON lines on stdout (pino). Request logs never carry the
 * Authorization header, the token or the body; `redact` guards against an accidental one.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'plant-store' },
    redact: ['req.headers.authorization', 'headers.authorization', 'authorization', 'token'],
  });
}
