import { readFileSync } from 'node:fs';

/**
 * How many connections to local `port` the kernel holds that no `accept()` has taken yet: the
 * listener's accept queue (its `rx_queue` in LISTEN state) and the handshakes under way
 * (SYN_RECV), read from Linux's `/proc/net/tcp` and `/proc/net/tcp6`. Closing a listener resets
 * them all. Undefined where those files cannot be read (not Linux).
 *
 * @example
 * if (queuedConnections(3000) === 0) server.close();
 */
export function queuedConnections(port: number): number | undefined {
  let queued = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let table: string;
    try {
      table = readFileSync(file, 'latin1');
    } catch {
      if (file.endsWith('6')) continue; // a kernel without IPv6
      return undefined;
    }
    // "sl local_address rem_address st tx_queue:rx_queue …", addresses and numbers in hex.
    for (const line of table.split('\n')) {
      const [, local, , state, queues] = line.trim().split(/\s+/);
      if (local === undefined || state === undefined || queues === undefined) continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) !== port) continue;
      if (state === '0A') queued += Number.parseInt(queues.slice(queues.indexOf(':') + 1), 16);
      else if (state === '03') queued += 1;
    }
  }
  return queued;
}
