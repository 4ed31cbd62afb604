import { accessSync, constants } from 'node:fs';
import { HAPROXY, NGINX } from './proxy-process.ts';

/**
 * Vitest global setup of `pnpm test:proxies`: nginx and haproxy must be installed, or the run
 * fails here with what to install (it never skips).
 */
export default function requireProxies(): void {
  const missing = [NGINX, HAPROXY].filter((path) => {
    try {
      accessSync(path, constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) {
    throw new Error(
      `pnpm test:proxies runs the shipped deploy/nginx.conf and deploy/haproxy.cfg with Debian's nginx and haproxy, but ${missing.join(' and ')} is missing: install them (sudo apt-get install -y nginx-light haproxy)`,
    );
  }
}
