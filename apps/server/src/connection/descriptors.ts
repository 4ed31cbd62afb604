import { readFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import type { Logger } from 'pino';

/** Descriptors a process needs besides its connections: stdio, the store, Node's own, a module. */
export const DESCRIPTOR_MARGIN = 64;

/**
 * The connection cap that fits the soft descriptor limit (`ulimit -n`, `LimitNOFILE=`): `max`,
 * or the limit less the margin (at least 1) with one warning; `max` where the limit is unknown.
 *
 * @example
 * const max = fitToDescriptorLimit(config.maxConnections, logger);
 */
export function fitToDescriptorLimit(
  max: number,
  logger: Logger,
  limit: number | undefined = softDescriptorLimit(),
): number {
  if (limit === undefined || max + DESCRIPTOR_MARGIN <= limit) return max;
  const fitted = Math.max(1, limit - DESCRIPTOR_MARGIN);
  logger.warn(
    { maxConnections: fitted, configured: max, descriptorLimit: limit },
    `MAX_CONNECTIONS=${max} does not fit the descriptor limit of ${limit} (ulimit -n; LimitNOFILE= in the systemd unit) with ${DESCRIPTOR_MARGIN} to spare: at most ${fitted} connections are served. Raise the limit or lower MAX_CONNECTIONS to silence this`,
  );
  return fitted;
}

/** The soft limit on open files, from `/proc/self/limits` (Linux); undefined elsewhere. */
function softDescriptorLimit(): number | undefined {
  try {
    const soft = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    return soft === undefined ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/**
 * Loads at start the table of encodings that raw-body's iconv-lite reads on the first body: out
 * of descriptors (EMFILE), loading it then failed that request with a 500.
 */
export function preloadRequestPath(): void {
  iconv.decode(Buffer.alloc(0), 'utf-8');
}
