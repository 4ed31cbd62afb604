import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ApiError } from './api-error.ts';
import { createApp } from './app.ts';
import type { Config } from './config.ts';
import { openStore } from './store/open-store.ts';
import type { PlantStore } from './store/plant-store.ts';
import { TokenRegistry } from './token-registry.ts';
import { ManagedTokenVerifier } from './tokens/managed-token-verifier.ts';
import { openTokenStore } from './tokens/open-token-store.ts';

/** How long a shutdown waits for in-flight requests before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly server: Server;
  readonly store: PlantStore;
  /** Stops accepting, lets in-flight requests finish, then closes the store. */
  close(): Promise<void>;
}

type ServerConfig = Pick<
  Config,
  'port' | 'host' | 'databaseUrl' | 'tokens' | 'bodyLimitBytes' | 'durability'
> &
  Partial<Pick<Config, 'postgres'>>;

/**
 * Opens the store (running its migrations) and serves the API on `config.host:config.port`.
 *
 * @example
 * const running = await startServer(loadConfig(), logger);
 * console.log(running.url);
 * await running.close();
 */
export async function startServer(config: ServerConfig, logger: Logger): Promise<RunningServer> {
  const store = await openStore(config.databaseUrl, {
    durability: config.durability,
    postgres: {
      ...config.postgres,
      onError: (error, context) => logger.warn({ err: error }, context),
    },
  });
  // The managed tokens (plant-store tokens …) live in the same database as the plants.
  const tokenStore = await openTokenStore(config.databaseUrl).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const app = createApp({
    store,
    tokens: TokenRegistry.fromTokens(config.tokens, new ManagedTokenVerifier(tokenStore)),
    bodyLimitBytes: config.bodyLimitBytes,
    logger,
  });
  const server = createServer(app.callback());
  // A request the HTTP parser rejects never reaches Koa: answer it in the Error shape too.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // Only parser errors (HPE_*) get an answer; a reset or timed-out socket is just closed.
    if (!socket.writable || !error.code?.startsWith('HPE_')) {
      socket.destroy();
      return;
    }
    const message =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'Request headers are too large'
        : 'Malformed HTTP request';
    const body = JSON.stringify(new ApiError('malformedRequest', message).toBody());
    socket.end(
      'HTTP/1.1 400 Bad Request\r\n' +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  const url = `http://${host}:${port}`;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await stopped;
      clearTimeout(force);
      await store.close();
      await tokenStore.close();
    })();
    return closing;
  };
  return { url, server, store, close };
}
