import { connect, type Socket } from 'node:net';

// Plain TCP to the server under test: for requests no HTTP client would send (malformed,
// pipelined with garbage, trickled, cut short) and for watching when the server closes.

/**
 * Connects to the server at `baseUrl` (`http://host:port`) over plain TCP.
 *
 * @example
 * const socket = await openSocket(server.url);
 * socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
 */
export function openSocket(
  baseUrl: string,
  /** `allowHalfOpen: true`: keep sending after the server has ended its side (as HTTP clients do). */
  options: { readonly allowHalfOpen?: boolean; readonly localAddress?: string } = {},
): Promise<Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ...options }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * Resolves with everything `socket` receives from now on, once it is closed (a reset counts
 * as a close).
 */
export function receivedUntilClose(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  return new Promise((resolve) =>
    socket.once('close', () => resolve(Buffer.concat(chunks).toString('utf8'))),
  );
}

/**
 * Connects to the server at `baseUrl`, writes `bytes` in one go and resolves with everything
 * the server sent until it closed the connection.
 *
 * @example
 * const answer = await sendRawBytes(server.url, 'BREW /plants HTCPCP\r\n\r\n');
 * answer.startsWith('HTTP/1.1 400 '); // true
 */
export async function sendRawBytes(baseUrl: string, bytes: string): Promise<string> {
  const socket = await openSocket(baseUrl);
  const received = receivedUntilClose(socket);
  socket.write(bytes);
  return received;
}

/**
 * Writes `request` on an open keep-alive `socket` and resolves with the status line of the
 * first complete response (one with a Content-Length); rejects when the socket closes first.
 */
export function statusLineOf(socket: Socket, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const onClose = () => reject(new Error(`closed after ${JSON.stringify(received)}`));
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const headerEnd = received.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(received)?.[1];
      if (headerEnd >= 0 && length !== undefined) {
        if (received.length < headerEnd + 4 + Number(length)) return;
        socket.off('data', onData);
        socket.off('close', onClose);
        resolve(received.split('\r\n')[0] ?? '');
      }
    };
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(request);
  });
}
