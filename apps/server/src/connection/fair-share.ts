import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Most requests a connection may have parsed and not answered: Node parses a whole 64 KiB read. */
export const MAX_PIPELINED = 16;

/** The connection cap (MAX_CONNECTIONS, below the descriptor limit; 0: none). */
export interface ConnectionCap {
  readonly max: number;
  /** Addresses with no per-address share (trusted proxies: they are the edge). */
  readonly exempt?: (address: string) => boolean;
  /** Called the first time a connection comes over the cap. */
  readonly onReached?: () => void;
}

/** The open connections (oldest first) and the answers under way on each. */
export interface Connections {
  readonly open: ReadonlySet<Socket>;
  answering(socket: Socket): ReadonlySet<ServerResponse>;
  allClosed(): Promise<void>;
}

const NONE: ReadonlySet<ServerResponse> = new Set();

/**
 * Tracks `server`'s connections by client address and caps them fairly (Node's `maxConnections`
 * refuses whoever comes next): one address holds at most half the cap (unless `exempt`); over
 * the cap the address holding the most loses a connection (`evictFrom`).
 * @example
 * const connections = trackConnections(server, { max: 900 });
 */
export function trackConnections(server: Server, cap: ConnectionCap = { max: 0 }): Connections {
  const open = new Set<Socket>();
  const byAddress = new Map<string, Set<Socket>>();
  const answering = new WeakMap<Socket, Set<ServerResponse>>();
  const share = Math.ceil(cap.max / 2);
  let emptied: (() => void) | undefined;
  let reached = false;

  const idle = (socket: Socket) => (answering.get(socket)?.size ?? 0) === 0;
  /** A connection's first request makes its set of answers under way. */
  const answersOf = (socket: Socket) => {
    const answers = new Set<ServerResponse>();
    answering.set(socket, answers);
    return answers;
  };
  /** Closes one connection of `address`: its oldest idle one, else `newcomer` or its oldest. */
  const evictFrom = (address: string, newcomer: Socket) => {
    const own = byAddress.get(address) ?? new Set<Socket>();
    for (const socket of own) {
      if (socket !== newcomer && idle(socket)) return socket.destroy();
    }
    if (own.has(newcomer)) return newcomer.destroy();
    own.values().next().value?.destroy();
  };
  /** The address holding the most; on a tie with the newcomer's, the other one. */
  const heaviest = (newcomer: string) => {
    let most = newcomer;
    for (const [address, { size }] of byAddress) {
      const count = byAddress.get(most)?.size ?? 0;
      if (address !== newcomer && (size > count || (most === newcomer && size === count))) {
        most = address;
      }
    }
    return most;
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const own = byAddress.get(address) ?? new Set<Socket>();
    byAddress.set(address, own);
    own.add(socket);
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      own.delete(socket);
      if (own.size === 0 && byAddress.get(address) === own) byAddress.delete(address);
      if (open.size === 0) emptied?.();
    });
    if (cap.max <= 0) return;
    if (own.size > share && !cap.exempt?.(address)) evictFrom(address, socket);
    else if (open.size > cap.max) {
      if (!reached) cap.onReached?.();
      reached = true;
      evictFrom(heaviest(address), socket);
    }
  });
  server.on('request', (request, response: ServerResponse) => {
    const socket = request.socket as Socket;
    // Node parses the rest of a read on a connection closed below (1,900 GETs fit in 64 KiB): a
    // request ended here is not aborted again with a formatted stack when the socket closes.
    if (socket.destroyed) return void request.destroy();
    const answers = answering.get(socket) ?? answersOf(socket);
    answers.add(response);
    response.on('close', () => answers.delete(response)); // a response closes once
    if (answers.size > MAX_PIPELINED) socket.destroy();
  });

  return {
    open,
    answering: (socket) => answering.get(socket) ?? NONE,
    allClosed: () =>
      new Promise<void>((resolve) => {
        emptied = resolve;
        if (open.size === 0) resolve();
      }),
  };
}
