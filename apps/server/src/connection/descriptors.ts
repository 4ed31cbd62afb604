import { readFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import type { Logger } from 'pino';

/**
 * Descriptors a server process needs besides its connections: stdio, the store's files or
 * pool (PG_POOL_MAX + 4), the metrics listener, Node's own (epoll, its pipes), a module file
 * being read.
 */
export const DESCRIPTOR_MARGIN = 64;

/**
 * The connection cap that fits the process's soft descriptor limit (`ulimit -n`,
 * `LimitNOFILE=`): `max` when `max + DESCRIPTOR_MARGIN` fits, else the limit less the margin
 * (at least 1), with one warning that says so. Where the limit cannot be read (no
 * `/proc/self/limits`: not Linux) `max` is kept.
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
export function softDescriptorLimit(): number | undefined {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
    return soft === undefined ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/**
 * Loads at start what the request path would otherwise load on first use: a module loaded
 * then needs a descriptor, and with none left (EMFILE) the request failed with a 500.
 * iconv-lite (through koa-bodyparser's raw-body, the same copy: its version is pinned to
 * raw-body's) reads its table of encodings on the first body it decodes.
 */
export function preloadRequestPath(): void {
  iconv.decode(Buffer.alloc(0), 'utf-8');
}
