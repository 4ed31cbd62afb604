import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BearerDigests } from './bearer.ts';
import type { SqliteGroupCommit } from './sqlite-group-commit.ts';

/** What every peer server is built from: the shared durable commit and bearer check. */
export interface PeerOptions {
  readonly commit: SqliteGroupCommit;
  readonly bearer: BearerDigests;
  readonly bodyLimitBytes: number;
}

/** A peer's HTTP server, whatever the framework. */
export interface PeerServer {
  /** Listens and resolves with the base URL, e.g. `http://127.0.0.1:3000`. */
  listen(port: number, host: string): Promise<string>;
  /** Stops accepting, ends idle connections and resolves once open requests are answered. */
  close(): Promise<void>;
}

/**
 * A `node:http` server as a {@link PeerServer}.
 *
 * @example
 * const url = await nodePeerServer(createServer(handler)).listen(0, '127.0.0.1');
 */
export function nodePeerServer(server: Server): PeerServer {
  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const { address, port: bound } = server.address() as AddressInfo;
          resolve(`http://${address}:${bound}`);
        });
      }),
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
