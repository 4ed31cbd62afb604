import { once } from 'node:events';
import type { AddressInfo, Server } from 'node:net';
import { StartupError } from './config.ts';

/**
 * Listens on `host:port`; resolves with the base URL (`http://127.0.0.1:3000`, IPv6 in brackets).
 * A failure is one start-up line: `cannot listen on HOST:PORT: <Node's message>`.
 */
export async function listenOn(server: Server, port: number, host: string): Promise<string> {
  try {
    await once(server.listen(port, host), 'listening'); // `once` rejects on 'error'
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(`cannot listen on ${host}:${port}: ${reason}`, { cause: error });
  }
  const { port: bound, address, family } = server.address() as AddressInfo;
  return `http://${family === 'IPv6' ? `[${address}]` : address}:${bound}`;
}
