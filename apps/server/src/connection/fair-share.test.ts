import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect as connectTcp, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { receivedUntilClose, statusLineOf } from '../../test/support/raw-socket.ts';
import { MAX_PIPELINED, trackConnections } from './fair-share.ts';

// The cap and the per-address share on a bare Node HTTP server on 127.0.0.1 (real sockets):
// the crowd connects from 127.0.0.1, the others from 127.0.0.2 and 127.0.0.3 (all of 127/8 is
// loopback). test/e2e/connection-cap.test.ts caps a server process under attack.

const GET = 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets) socket.destroy();
  server?.closeAllConnections();
  server?.close();
});

async function capped(
  max: number,
  handler: Parameters<typeof createServer>[1],
  exempt?: (address: string) => boolean,
) {
  server = createServer(handler);
  const onReached = vi.fn();
  trackConnections(server, { max, onReached, ...(exempt ? { exempt } : {}) });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const connect = (from = '127.0.0.1') =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connectTcp({ host: '127.0.0.1', port, localAddress: from }, () =>
        resolve(socket),
      );
      socket.once('error', reject);
      sockets.push(socket);
    });
  return { connect, onReached };
}

/** Lets the server see what was just sent (its connection and request events). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

describe('the connection cap', () => {
  it('closes the oldest idle connection of the address holding the most, and serves the new one', async () => {
    const { connect, onReached } = await capped(4, (_request, response) => response.end('ok'));
    const crowd = [await connect(), await connect()];
    const other = await connect('127.0.0.2');
    const third = await connect('127.0.0.3');
    await settle();
    const oldestClosed = receivedUntilClose(crowd[0] as Socket);
    const newcomer = await connect('127.0.0.2'); // over the cap: 127.0.0.1 holds the most
    expect(await statusLineOf(newcomer, GET)).toBe('HTTP/1.1 200 OK');
    expect(await oldestClosed).toBe('');
    for (const socket of [crowd[1], other, third]) expect(socket?.destroyed).toBe(false);
    expect(onReached).toHaveBeenCalledTimes(1);
  });

  it("closes the heaviest address's oldest connection even when busy, never another address's", async () => {
    const { connect } = await capped(3, () => undefined); // never answers: every connection busy
    const crowd = [await connect(), await connect()];
    for (const socket of crowd) socket.write(GET);
    const other = await connect('127.0.0.2');
    other.write(GET);
    await settle();
    const oldestClosed = receivedUntilClose(crowd[0] as Socket);
    const newcomer = await connect('127.0.0.3');
    await oldestClosed;
    await settle();
    expect(newcomer.destroyed).toBe(false);
    expect(other.destroyed).toBe(false);
  });

  it('gives one address at most half the cap: past it, its newcomer goes when all of its own are busy', async () => {
    const { connect } = await capped(4, () => undefined);
    const crowd = [await connect(), await connect()];
    for (const socket of crowd) socket.write(GET);
    await settle();
    const over = await connect();
    expect(await receivedUntilClose(over)).toBe('');
    for (const socket of crowd) expect(socket.destroyed).toBe(false);
    const other = await connect('127.0.0.2'); // room for the others: under the cap
    await settle();
    expect(other.destroyed).toBe(false);
  });

  it('lets an exempt address (a trusted proxy) hold up to the whole cap', async () => {
    const { connect } = await capped(
      4,
      () => undefined,
      (address) => address === '127.0.0.1',
    );
    const proxied = [await connect(), await connect(), await connect(), await connect()];
    await settle();
    for (const socket of proxied) expect(socket.destroyed).toBe(false);
  });
});

describe('pipelining', () => {
  it(`closes a connection with more than ${MAX_PIPELINED} requests parsed and not answered`, async () => {
    const { connect } = await capped(0, () => undefined);
    const shallow = await connect();
    shallow.write(GET.repeat(MAX_PIPELINED));
    const deep = await connect();
    deep.write(GET.repeat(MAX_PIPELINED + 1));
    expect(await receivedUntilClose(deep)).toBe('');
    expect(shallow.destroyed).toBe(false);
  });

  it('ends each request Node parses after the close at once, so none is aborted with a stack', async () => {
    const requests: IncomingMessage[] = [];
    const { connect } = await capped(0, (request) => {
      requests.push(request);
    });
    const deep = await connect();
    deep.write(GET.repeat(200)); // one read: Node parses all 200 although it closes at the 17th
    expect(await receivedUntilClose(deep)).toBe('');
    await settle();
    const afterClose = requests.slice(MAX_PIPELINED + 1);
    expect(afterClose.length).toBeGreaterThan(100);
    expect(afterClose.filter((request) => request.errored !== null)).toEqual([]);
    expect(requests[0]?.errored?.message).toBe('aborted'); // under way: Node aborts it
  });
});
