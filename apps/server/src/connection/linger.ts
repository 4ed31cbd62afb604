import type { Socket } from 'node:net';

/** What a lingering close reads at most: bytes, and reads of less than 1 KiB (a trickle). */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;
export const LINGER_MAX_SMALL_READS = 64;

/**
 * nginx's lingering close, for an answer sent before the request's body was read (401, 413,
 * 415, 429 …, a parser error): closed at once, the kernel would reset a client still sending,
 * and fetch or curl would lose the answer. So `answer` is written, the server's side ends, and
 * the rest is read as raw bytes and dropped (the HTTP parser taken off), never parsed, until the
 * client ends or `lingerMs`, `LINGER_MAX_BYTES` or `LINGER_MAX_SMALL_READS` run out: a body in
 * 1-byte chunks costs 64 reads. A body announced as larger than `LINGER_MAX_BYTES` is not read.
 *
 * @example
 * answerAndLinger(request.socket, rawErrorAnswer(error), 5_000, request.headers['content-length']);
 */
export function answerAndLinger(
  socket: Socket,
  answer: string,
  lingerMs: number,
  announcedLength?: string,
): void {
  const close = () => {
    socket.destroy();
  };
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
  // Node's HTTP server starts reading again on 'resume' (its parser may have stopped reading
  // for a body nobody took); once it has, the parser is taken off: its listener removed, ours
  // added, which makes Node hand the bytes to 'data' listeners instead of its parser. Not while
  // the parser is at work (a refusal or a parser error can come from inside it): at the next turn.
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
