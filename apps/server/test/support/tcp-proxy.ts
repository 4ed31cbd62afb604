import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * What the proxy does with traffic:
 * - `forward`: passes bytes both ways.
 * - `blackhole`: accepts connections and keeps every socket open, but passes nothing (a
 *   network partition: the peer sees silence, not an error).
 * - `refuse`: stops listening and resets every connection (a host with nothing listening).
 */
export type ProxyMode = 'forward' | 'blackhole' | 'refuse';

/** A TCP proxy on 127.0.0.1 in front of a real server, whose failure mode a test can switch. */
export interface TcpProxy {
  readonly port: number;
  readonly mode: ProxyMode;
  /** Switches the mode; resolves once the listener is in the matching state. */
  setMode(mode: ProxyMode): Promise<void>;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/**
 * Starts a TCP proxy from a free port of 127.0.0.1 to `target`, to put a real network
 * failure (silence or refusal) between a client and a real server.
 *
 * @example
 * const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
 * await proxy.setMode('blackhole'); // queries through proxy.port now hang
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server: Server = createServer((client) => {
    track(client);
    const upstream = connect(target.port, target.host);
    track(upstream);
    const pass = (from: Socket, to: Socket) => {
      from.on('data', (chunk) => {
        if (mode === 'forward') to.write(chunk);
      });
      from.on('close', () => {
        if (mode === 'forward') to.destroy();
      });
    };
    pass(client, upstream);
    pass(upstream, client);
  });
  await listen(server, 0);
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  const destroyAll = () => {
    for (const socket of sockets) socket.resetAndDestroy();
  };
  return {
    port,
    get mode() {
      return mode;
    },
    async setMode(next) {
      const wasListening = mode !== 'refuse';
      mode = next;
      if (next === 'refuse') {
        destroyAll();
        if (wasListening) await new Promise<void>((resolve) => server.close(() => resolve()));
      } else if (!wasListening) {
        await listen(server, port);
      }
    },
    async close() {
      destroyAll();
      if (mode !== 'refuse') await new Promise<void>((resolve) => server.close(() => resolve()));
      mode = 'refuse';
    },
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
