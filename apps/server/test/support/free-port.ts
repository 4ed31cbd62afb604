import { createServer } from 'node:net';

/**
 * A TCP port that was free on 127.0.0.1 a moment ago (asked from the OS, then released), for
 * a process that must be told its port up front (PostgreSQL, Prism).
 *
 * @example
 * const port = await freePort();
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
