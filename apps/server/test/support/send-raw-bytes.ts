import { connect } from 'node:net';

/**
 * Connects to the server at `baseUrl` over plain TCP, writes `bytes` in one go and resolves
 * with everything the server sent until it closed the connection: for requests no HTTP client
 * would send (malformed, pipelined with garbage, a body cut short).
 *
 * @example
 * const answer = await sendRawBytes(server.url, 'BREW /plants HTCPCP\r\n\r\n');
 * answer.startsWith('HTTP/1.1 400 '); // true
 */
export function sendRawBytes(baseUrl: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}
