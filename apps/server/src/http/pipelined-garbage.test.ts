import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRawBytes } from '../../test/support/raw-socket.ts';
import { readPlantRows } from '../../test/support/read-plant-rows.ts';
import { startTestServer, type TestServer } from '../../test/support/start-test-server.ts';

// HTTP/1.1 pipelining over a raw socket: a valid create followed at once, on the same
// connection, by bytes that are not HTTP. The parser fails on the second while the first is
// still being committed.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.dispose();
});

describe('a create pipelined with garbage', () => {
  it('answers the create with its own 200 (it was stored), then refuses the garbage and closes', async () => {
    const body = '{"id": 4242, "name": "Pipelined"}';
    const create =
      `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const response = await sendRawBytes(server.url, `${create}NOT HTTP AT ALL\r\n\r\n`);
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(response).toContain('{"name":"Pipelined"}');
    expect(readPlantRows(server.databaseFile).map((row) => row.id)).toEqual([4242n]);
    // The second answer starts right after the first one's body (no line break between).
    const statusLines = response.match(/HTTP\/1\.1 \d{3}/g);
    expect(statusLines).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
    expect(response.slice(response.lastIndexOf('HTTP/1.1 400'))).toContain('"error":40004');
  });
});
