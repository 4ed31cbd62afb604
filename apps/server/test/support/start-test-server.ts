import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULTS, parseDatabase } from '../../src/config.ts';
import type { HttpTimeouts } from '../../src/connection/http-server.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { silentLogger } from './silent-logger.ts';
import type { TestAppOptions } from './test-app.ts';

export interface TestServer extends RunningServer {
  /** A bearer token the server accepts. */
  readonly token: string;
  /** The SQLite file the server stores plants in. */
  readonly databaseFile: string;
  /**
   * Closes the server (its idle keep-alive connections at once, as Node's `server.close()`
   * does) and deletes its temporary folder.
   */
  dispose(): Promise<void>;
}

export interface TestServerOptions extends Omit<TestAppOptions, 'metrics'> {
  /** Serve /metrics on a listener of its own (a free port of 127.0.0.1): see `metricsUrl`. */
  readonly metrics?: boolean;
  readonly timeouts?: Partial<HttpTimeouts>;
  /** SHUTDOWN_DELAY_MS: `/readyz` answers 503 this long after `close()` before the listener closes. */
  readonly shutdownDelayMs?: number;
}

/**
 * Starts the real server in this process on 127.0.0.1, a free port and a temporary SQLite
 * file, with a fresh random token and logging off: for the e2e tier, where a socket is the
 * subject (the unit tier injects requests into the app: `createTestApp`).
 *
 * @example
 * const server = await startTestServer();
 * await fetch(`${server.url}/healthz`);
 * await server.dispose();
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-test-'));
  const databaseFile = options.databaseFile ?? join(folder, 'plants.db');
  const token = options.tokens?.[0] ?? `test-${randomBytes(24).toString('base64url')}`;
  const running = await startServer(
    {
      port: 0,
      host: '127.0.0.1',
      database: parseDatabase(databaseFile),
      tokens: options.tokens ?? [token],
      bodyLimitBytes: options.bodyLimitBytes ?? DEFAULTS.bodyLimitBytes,
      durability: DEFAULTS.durability,
      ...(options.metrics ? { metrics: { host: '127.0.0.1', port: 0 } } : {}),
      ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
      ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
      ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
      ...(options.timeouts ? { timeouts: options.timeouts } : {}),
      ...(options.shutdownDelayMs ? { shutdownDelayMs: options.shutdownDelayMs } : {}),
    },
    options.logger ?? silentLogger(),
  );
  return {
    ...running,
    token,
    databaseFile,
    async dispose() {
      await running.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
