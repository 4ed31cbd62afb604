import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { queuedConnections } from './accept-queue.ts';

describe.runIf(process.platform === 'linux')('queuedConnections', () => {
  it('counts the connections the kernel holds for a listener until they are accepted', async () => {
    const accepted: Socket[] = [];
    const server = createServer((socket) => accepted.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const clients: Socket[] = [];
    try {
      expect(queuedConnections(port)).toBe(0);
      for (let i = 0; i < 3; i++) clients.push(connect({ host: '127.0.0.1', port }));
      await new Promise((resolve) => process.nextTick(resolve)); // Node connects on the next tick
      // This process is busy: the kernel completes the handshakes and queues them.
      const busyUntil = performance.now() + 100;
      while (performance.now() < busyUntil);
      expect(queuedConnections(port)).toBe(3);
      while (accepted.length < 3) await new Promise((resolve) => setImmediate(resolve));
      expect(queuedConnections(port)).toBe(0);
    } finally {
      for (const socket of [...clients, ...accepted]) socket.destroy();
      server.close();
    }
  });
});
