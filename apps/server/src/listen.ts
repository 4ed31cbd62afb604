import { once } from 'node:events';
import { type AddressInfo, isIPv6, type Server } from 'node:net';
import { StartupError } from './config.ts';

/** The base URL of `address:port` (`http://127.0.0.1:3000`, IPv6 in brackets). */
export function baseUrl(address: string, port: number): string {
  return `http://${isIPv6(address) ? `[${address}]` : address}:${port}`;
}

/**
 * Listens on `host:port`; resolves with the base URL of the address bound.
 * A failure is one start-up line: `cannot listen on HOST:PORT: <Node's message>`.
 */
export async function listenOn(server: Server, port: number, host: string): Promise<string> {
  try {
    await once(server.listen(port, host), 'listening'); // `once` rejects on 'error'
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(`cannot listen on ${host}:${port}: ${reason}`, { cause: error });
  }
  const { address, port: bound } = server.address() as AddressInfo;
  return baseUrl(address, bound);
}
