import type { Socket } from 'node:net';

/** What a lingering close reads at most: bytes, and reads of less than 1 KiB (a trickle). */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;
export const LINGER_MAX_SMALL_READS = 8;

/**
 * nginx's lingering close, for an answer sent before the body was read: closed at once, the
 * kernel would reset a client still sending and it would lose the answer. So `answer` is written
 * and the rest read raw and dropped until the client ends or a limit runs out.
 * @example
 * answerAndLinger(request.socket, rawErrorAnswer(error), 5_000, request.headers['content-length']);
 */
export function answerAndLinger(
  socket: Socket,
  answer: string,
  lingerMs: number,
  announcedLength?: string,
): void {
  const close = () => void socket.destroy();
  socket.on('error', close);
  if (!socket.writable) {
    close();
    return;
  }
  socket.end(answer);
  if (lingerMs <= 0 || Number(announcedLength ?? 0) > LINGER_MAX_BYTES) {
    socket.once('finish', close);
    return;
  }
  const timer = setTimeout(close, lingerMs);
  socket.once('close', () => clearTimeout(timer));
  // On 'resume' (Node's parser may have stopped reading) the parser's 'data' listener gives way
  // to ours; at the next turn, as a refusal can come from inside the parser.
  socket.once('resume', () => {
    for (const listener of socket.listeners('data')) {
      socket.removeListener('data', listener as (chunk: Buffer) => void);
    }
    let smallReads = 0;
    let bytes = 0;
    socket.on('data', (chunk: Buffer) => {
      if (chunk.length < 1024) smallReads += 1;
      bytes += chunk.length;
      if (smallReads > LINGER_MAX_SMALL_READS || bytes > LINGER_MAX_BYTES) close();
    });
    socket.once('end', close);
  });
  setImmediate(() => {
    socket.pause();
    socket.resume();
  });
}
