import { afterEach, describe, expect, it } from 'vitest';
import { openSocket, receivedUntilClose, statusLineOf } from '../support/raw-socket.ts';
import { readPlantRows } from '../support/read-plant-rows.ts';
import { startTestServer, type TestServer } from '../support/start-test-server.ts';

// Whether a refusal keeps its connection depends on how much of the body had arrived, which only
// a socket shows (the app's refusals themselves are unit tested beside the code).

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.dispose();
});

describe('a 429', () => {
  it('keeps the connection after a 429 for a body that has arrived, closes it for one still arriving', async () => {
    const server = await startTestServer({
      rateLimit: { perSecond: 1, burst: 1, authFailuresPerMinute: 0 },
    });
    servers.push(server);
    const request = (body: string) =>
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const socket = await openSocket(server.url);
    try {
      expect(await statusLineOf(socket, request('{"id": 1, "name": "Fern"}'))).toBe(
        'HTTP/1.1 200 OK',
      );
      expect(await statusLineOf(socket, request('{"id": 2, "name": "Fern"}'))).toBe(
        'HTTP/1.1 429 Too Many Requests',
      );
      // Same socket: the 429 did not close it.
      expect(await statusLineOf(socket, request('{"id": 3, "name": "Fern"}'))).toBe(
        'HTTP/1.1 429 Too Many Requests',
      );
    } finally {
      socket.destroy();
    }
    expect(readPlantRows(server.databaseFile)).toHaveLength(1);

    // A body still arriving is not read: answered, then the connection closes.
    const big = await openSocket(server.url);
    const received = receivedUntilClose(big);
    big.write(request(`{"id": 4, "name": "${'x'.repeat(1_000_000)}"}`));
    const answer = await received;
    expect(answer).toMatch(/^HTTP\/1\.1 429 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
  });
});
