import { connect, createServer, type Server, type Socket } from 'node:net';

// A TCP relay between a proxy and an instance that records what the instance receives: the
// bytes of each connection from the proxy, as the instance reads them. How a test tells what
// reached an instance (a refused body: none of its bytes; a chunked create: one Content-Length
// body), counted at the instance's side of the proxy.

/** At most this many bytes are kept; `overflowed` tells when more came. */
const MAX_RECORDED_BYTES = 64 * 1024 * 1024;

export interface RecordingRelay {
  /** Where the proxy connects (127.0.0.1). */
  readonly port: number;
  /** What each connection sent the instance since the last `reset`, in latin1. */
  received(): string[];
  /** True when more than 64 MiB arrived since the last `reset` (the rest was not kept). */
  overflowed(): boolean;
  reset(): void;
  close(): Promise<void>;
}

/** Starts a relay on a free port of 127.0.0.1 to `targetPort`, both ways, with backpressure. */
export async function startRecordingRelay(targetPort: number): Promise<RecordingRelay> {
  let streams: Buffer[][] = [];
  let recorded = 0;
  let overflow = false;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    track(client);
    track(upstream);
    let chunks: Buffer[] = [];
    streams.push(chunks);
    let generation = streams;
    client.on('data', (chunk: Buffer) => {
      if (generation !== streams) {
        // Reset since: this connection's bytes from now on belong to the new record.
        generation = streams;
        chunks = [];
        streams.push(chunks);
      }
      if (recorded + chunk.length > MAX_RECORDED_BYTES) overflow = true;
      else {
        recorded += chunk.length;
        chunks.push(chunk);
      }
    });
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    received: () => streams.map((chunks) => Buffer.concat(chunks).toString('latin1')),
    overflowed: () => overflow,
    reset: () => {
      streams = [];
      recorded = 0;
      overflow = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
