import { once } from 'node:events';
import { connect as connectHttp2 } from 'node:http2';
import { connect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { DOCS_PATHS } from '../../src/docs/docs-assets.ts';

// The attacks on a proxy, one place each (edge-attacks.test.ts runs every one through both
// shipped configs). An attack opens raw connections from its addresses and drives each one
// its way until its time is up, reopening a connection that is cut when it says so; it only
// reports what it met (the caller measures the creates and what reached the instances).

/** One attacking address; the legitimate client is on 127.0.0.2. */
export const ONE_ADDRESS = '127.0.0.1';
/** A connection attempt that has not connected by then is dropped. */
const CONNECT_TIMEOUT_MS = 10_000;

/** `count` attacking addresses 127.1.x.y (never the legitimate client's). */
export function attackAddresses(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`);
}

export interface AttackTarget {
  readonly host: string;
  readonly port: number;
  /** A credential the instances accept (for an attack that must get past it). */
  readonly token: string;
}

/** What an attack met: its connections, and how they ended. */
export interface AttackReport {
  /** Connections made (reopened ones included), and attempts that failed, by error code. */
  readonly connected: number;
  readonly failed: Readonly<Record<string, number>>;
  /** The status of the first answer each connection got, or `none` (no answer when it ended). */
  readonly answers: Readonly<Record<string, number>>;
  /** Connections the far side closed or reset before the attack's time was up. */
  readonly cut: number;
  /** Bytes the attack wrote. */
  readonly bytesWritten: number;
}

export interface EdgeAttack {
  readonly name: string;
  /**
   * It sends a body the proxy must refuse, or one no route wants, in requests marked with
   * UNWANTED_BODY_MARK: no byte of them may reach an instance (edge-attacks.test.ts).
   */
  readonly unwantedBody: boolean;
  run(target: AttackTarget, durationMs: number): Promise<AttackReport>;
}

/** How one connection behaves once connected; resolves when it has nothing more to do. */
type Drive = (socket: Socket, until: number, tally: Tally) => Promise<void>;

class Tally {
  connected = 0;
  cut = 0;
  bytesWritten = 0;
  readonly failed: Record<string, number> = {};
  readonly answers: Record<string, number> = {};
  count(into: Record<string, number>, key: string): void {
    into[key] = (into[key] ?? 0) + 1;
  }
  report(): AttackReport {
    const { connected, failed, answers, cut, bytesWritten } = this;
    return { connected, failed, answers, cut, bytesWritten };
  }
}

/**
 * Opens `perAddress` connections from each of `addresses` at once and drives each with `drive`
 * until `durationMs` have passed; a connection cut earlier is reopened if `reopen`. Every
 * connection is destroyed when it resolves.
 */
async function attack(
  target: AttackTarget,
  durationMs: number,
  plan: {
    readonly addresses: readonly string[];
    readonly perAddress: number;
    readonly reopen: boolean;
    readonly drive: Drive;
  },
): Promise<AttackReport> {
  const until = performance.now() + durationMs;
  const tally = new Tally();
  const slot = async (localAddress: string) => {
    do {
      const socket = await connectFrom(target, localAddress, tally);
      if (socket === undefined) {
        await delay(100); // refused or timed out: try again shortly, as a bot does
        continue;
      }
      let answered = false;
      socket.once('data', (chunk: Buffer) => {
        answered = true;
        tally.count(
          tally.answers,
          /^HTTP\/1\.[01] (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 'garbled',
        );
      });
      socket.on('error', () => undefined);
      const ended = closed(socket);
      await Promise.race([
        plan.drive(socket, until, tally).then(() => ended),
        ended,
        delay(Math.max(0, until - performance.now())),
      ]);
      const wasCut = socket.destroyed && performance.now() < until;
      if (!answered) tally.count(tally.answers, 'none');
      if (wasCut) tally.cut++;
      socket.destroy();
      if (!wasCut) return;
    } while (plan.reopen && performance.now() < until);
  };
  const slots: Promise<void>[] = [];
  for (const address of plan.addresses) {
    for (let i = 0; i < plan.perAddress; i++) slots.push(slot(address));
  }
  await Promise.all(slots);
  return tally.report();
}

function connectFrom(
  target: AttackTarget,
  localAddress: string,
  tally: Tally,
): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: target.host, port: target.port, localAddress });
    const timer = setTimeout(
      () => socket.destroy(new Error('connect timeout')),
      CONNECT_TIMEOUT_MS,
    );
    const failed = (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      tally.count(tally.failed, error.code ?? error.message);
      resolve(undefined);
    };
    socket.once('error', failed);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', failed);
      tally.connected++;
      resolve(socket);
    });
  });
}

/** Writes `bytes` (respecting backpressure); false once the connection is gone. */
async function write(socket: Socket, bytes: string | Buffer, tally: Tally): Promise<boolean> {
  if (socket.destroyed) return false;
  tally.bytesWritten += bytes.length;
  if (socket.write(bytes)) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.once('drain', done);
    socket.once('close', done);
  });
  return !socket.destroyed;
}

/** Resolves when `socket` has closed (a reset too: unlike events.once, an error never rejects). */
function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.closed) resolve();
    else socket.once('close', () => resolve());
  });
}

/** Resolves when the time is up or the connection is gone, whichever comes first. */
function holdOpen(socket: Socket, until: number): Promise<void> {
  return Promise.race([closed(socket), delay(Math.max(0, until - performance.now()))]);
}

const DOCS_SCRIPT_REQUEST = `GET ${DOCS_PATHS.script} HTTP/1.1\r\nHost: plant-store\r\n\r\n`;

/**
 * Asks for the API reference's script (4.3 MB without Accept-Encoding) and stops reading after
 * the first piece of the answer: Node then takes its high-water mark (16 KiB) and the kernel's
 * receive buffer fills (~128 KiB: it grows only as the reader reads). A short refusal is read
 * to its end, so that the proxy's close is seen.
 */
const stalledReader: Drive = async (socket, until, tally) => {
  socket.once('data', (chunk: Buffer) => {
    if (chunk.toString('latin1').startsWith('HTTP/1.1 200 ')) socket.pause();
  });
  await write(socket, DOCS_SCRIPT_REQUEST, tally);
  await holdOpen(socket, until);
};

/** Connects and sends nothing. */
const idle: Drive = (socket, until) => holdOpen(socket, until);

/** Sends a request line, then a header line a second, never the blank line (slowloris). */
const slowHeaders: Drive = async (socket, until, tally) => {
  if (!(await write(socket, 'GET / HTTP/1.1\r\nHost: plant-store\r\n', tally))) return;
  for (let n = 0; performance.now() < until; n++) {
    await Promise.race([delay(1_000), closed(socket)]);
    if (!(await write(socket, `X-Slow-${n}: x\r\n`, tally))) return;
  }
};

/** 8,000 GETs of /healthz in one write, then never reads (after the first piece). */
const PIPELINED = 'GET /healthz HTTP/1.1\r\nHost: plant-store\r\n\r\n'.repeat(8_000);
const pipelined: Drive = async (socket, until, tally) => {
  socket.once('data', () => socket.pause());
  await write(socket, PIPELINED, tally);
  await holdOpen(socket, until);
};

/** Writes `head`, then `piece` again and again as fast as the connection takes it. */
function endlessBody(head: string, piece: Buffer): Drive {
  return async (socket, until, tally) => {
    socket.setNoDelay(true);
    if (!(await write(socket, head, tally))) return;
    let writes = 0;
    while (performance.now() < until && (await write(socket, piece, tally))) {
      // Lets the answer in now and then, as an HTTP client reads between writes.
      if (++writes % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  };
}

/** `count` chunks of chunked transfer encoding, one byte each. */
function oneByteChunks(count: number, byte = 'x'): Buffer {
  return Buffer.from(`1\r\n${byte}\r\n`.repeat(count), 'latin1');
}

/** One chunk of `size` bytes of `x`. */
function bigChunk(size: number): Buffer {
  return Buffer.from(`${size.toString(16)}\r\n${'x'.repeat(size)}\r\n`, 'latin1');
}

/** An empty stored deflate block (not the last): BFINAL 0, BTYPE 00, LEN 0, NLEN 0xffff. */
const EMPTY_STORED_BLOCK = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);
/** A gzip member's header (no name, no extra), then empty stored blocks: decodes to nothing. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03]);
const EMPTY_BLOCKS = Buffer.concat(Array.from({ length: 13_000 }, () => EMPTY_STORED_BLOCK));

function chunk(bytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`${bytes.length.toString(16)}\r\n`),
    bytes,
    Buffer.from('\r\n'),
  ]);
}

/** An authenticated create whose gzip body never ends: empty stored blocks after its header. */
function gzipOfEmptyBlocks(token: string, chunked: boolean): Drive {
  const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${200 * 1024 * 1024}`;
  const head = `POST /plants HTTP/1.1\r\nHost: plant-store\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n${UNWANTED_BODY_MARK}\r\n${framing}\r\n\r\n`;
  const first = chunked ? chunk(GZIP_HEADER) : GZIP_HEADER;
  const piece = chunked ? chunk(EMPTY_BLOCKS) : EMPTY_BLOCKS;
  return async (socket, until, tally) => {
    if (!(await write(socket, Buffer.concat([Buffer.from(head), first]), tally))) return;
    await endlessBody('', piece)(socket, until, tally);
  };
}

/** A header line of every request with an unwanted body: what the instances must never receive. */
export const UNWANTED_BODY_MARK = 'X-Edge-Attack: unwanted-body';
const UNAUTHENTICATED_CHUNKED_POST = `POST /plants HTTP/1.1\r\nHost: plant-store\r\nContent-Type: application/json\r\n${UNWANTED_BODY_MARK}\r\nTransfer-Encoding: chunked\r\n\r\n`;
const chunkedGet = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: plant-store\r\n${UNWANTED_BODY_MARK}\r\nTransfer-Encoding: chunked\r\n\r\n`;

export const EDGE_ATTACKS: readonly EdgeAttack[] = [
  {
    name: '2,500 stalled readers of the docs script from one address',
    unwantedBody: false,
    run: (target, ms) =>
      attack(target, ms, {
        addresses: [ONE_ADDRESS],
        perAddress: 2_500,
        reopen: false,
        drive: stalledReader,
      }),
  },
  {
    name: '200 addresses × 12 stalled readers of the docs script',
    unwantedBody: false,
    run: (target, ms) =>
      attack(target, ms, {
        addresses: attackAddresses(200),
        perAddress: 12,
        reopen: false,
        drive: stalledReader,
      }),
  },
  {
    name: '1,000 addresses × 1 connection (idle, slow headers or a stalled reader), reopened when cut',
    unwantedBody: false,
    run: (target, ms) => {
      const addresses = attackAddresses(1_000);
      const drives = [idle, slowHeaders, stalledReader];
      return Promise.all(
        drives.map((drive, kind) =>
          attack(target, ms, {
            addresses: addresses.filter((_, i) => i % drives.length === kind),
            perAddress: 1,
            reopen: true,
            drive,
          }),
        ),
      ).then(merge);
    },
  },
  {
    name: '20 × 8,000 pipelined GETs never read, from one address',
    unwantedBody: false,
    run: (target, ms) =>
      attack(target, ms, {
        addresses: [ONE_ADDRESS],
        perAddress: 20,
        reopen: true,
        drive: pipelined,
      }),
  },
  {
    name: '3,000 idle connections from 300 addresses, reopened when cut',
    unwantedBody: false,
    run: (target, ms) =>
      attack(target, ms, {
        addresses: attackAddresses(300),
        perAddress: 10,
        reopen: true,
        drive: idle,
      }),
  },
  {
    name: '1,000 slow-header connections from 100 addresses, reopened when cut',
    unwantedBody: false,
    run: (target, ms) =>
      attack(target, ms, {
        addresses: attackAddresses(100),
        perAddress: 10,
        reopen: true,
        drive: slowHeaders,
      }),
  },
  {
    name: 'an unauthenticated POST of 1-byte chunks written as fast as it goes',
    unwantedBody: true,
    run: (target, ms) =>
      attack(target, ms, {
        addresses: [ONE_ADDRESS],
        perAddress: 1,
        reopen: true,
        drive: endlessBody(UNAUTHENTICATED_CHUNKED_POST, oneByteChunks(10_000)),
      }),
  },
  ...['/', '/openapi.json'].map(
    (path): EdgeAttack => ({
      name: `an endless chunked body on GET ${path}`,
      unwantedBody: true,
      run: (target, ms) =>
        attack(target, ms, {
          addresses: [ONE_ADDRESS],
          perAddress: 2,
          reopen: true,
          drive: endlessBody(chunkedGet(path), bigChunk(64 * 1024)),
        }),
    }),
  ),
  {
    name: 'a gzip body of empty stored blocks (Content-Length 200 MB, and chunked)',
    unwantedBody: true,
    run: (target, ms) =>
      Promise.all(
        [false, true].map((chunked) =>
          attack(target, ms, {
            addresses: [ONE_ADDRESS],
            perAddress: 1,
            reopen: true,
            drive: gzipOfEmptyBlocks(target.token, chunked),
          }),
        ),
      ).then(merge),
  },
];

/** An unfinished create: its head and half of its 60 KB body, the rest never sent. */
const UNFINISHED_BYTES = 30_000;

/**
 * An HTTP/2 session over clear text (prior knowledge) from `localAddress`: once the proxy
 * speaks HTTP/2 (its SETTINGS came), `streams` unfinished creates held until `until`, and true;
 * false when it refuses (the session fails first).
 */
function unfinishedOverHttp2(
  target: AttackTarget,
  localAddress: string,
  streams: number,
  until: number,
): Promise<boolean> {
  return new Promise((resolve) => {
    const session = connectHttp2(`http://${target.host}:${target.port}`, {
      createConnection: () => connect({ host: target.host, port: target.port, localAddress }),
    });
    let spoke = false;
    const end = () => {
      clearTimeout(timer);
      session.destroy();
      resolve(spoke);
    };
    const timer = setTimeout(end, Math.max(0, until - performance.now()));
    session.on('error', end);
    session.on('close', end);
    session.once('remoteSettings', () => {
      spoke = true;
      for (let i = 0; i < streams; i++) {
        const stream = session.request({
          ':method': 'POST',
          ':path': '/plants',
          authorization: `Bearer ${target.token}`,
          'content-type': 'application/json',
          'content-length': '60000',
        });
        stream.on('error', () => undefined);
        stream.write(Buffer.alloc(UNFINISHED_BYTES, ' '));
      }
    });
  });
}

/** An HTTP/1.1 create whose 60 KB body stops halfway, held open. */
const unfinishedOverHttp1 =
  (token: string): Drive =>
  async (socket, until, tally) => {
    const head = `POST /plants HTTP/1.1\r\nHost: plant-store\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n`;
    if (!(await write(socket, head, tally))) return;
    if (!(await write(socket, Buffer.alloc(UNFINISHED_BYTES, ' '), tally))) return;
    await holdOpen(socket, until);
  };

/** What `unfinishedRequests` met: HTTP/2 sessions held or refused, and the HTTP/1.1 attack. */
export interface UnfinishedReport {
  readonly http2Held: number;
  readonly http2Refused: number;
  readonly http1: AttackReport;
}

/**
 * 3 addresses × 100 connections, each with 100 unfinished 60 KB creates over HTTP/2 (prior
 * knowledge) for `durationMs`; then, as the proxy refuses HTTP/2, as many connections with the
 * one unfinished create HTTP/1.1 carries, for `durationMs`.
 */
export async function unfinishedRequests(
  target: AttackTarget,
  durationMs: number,
): Promise<UnfinishedReport> {
  const until = performance.now() + durationMs;
  const addresses = attackAddresses(3);
  const sessions = await Promise.all(
    addresses.flatMap((address) =>
      Array.from({ length: 100 }, () => unfinishedOverHttp2(target, address, 100, until)),
    ),
  );
  const http2Held = sessions.filter(Boolean).length;
  const http1 = await attack(target, durationMs, {
    addresses,
    perAddress: 100,
    reopen: false,
    drive: unfinishedOverHttp1(target.token),
  });
  return { http2Held, http2Refused: sessions.length - http2Held, http1 };
}

function merge(reports: readonly AttackReport[]): AttackReport {
  const sum = (into: Record<string, number>, from: Readonly<Record<string, number>>) => {
    for (const [key, n] of Object.entries(from)) into[key] = (into[key] ?? 0) + n;
    return into;
  };
  return {
    connected: reports.reduce((n, r) => n + r.connected, 0),
    failed: reports.reduce((into, r) => sum(into, r.failed), {}),
    answers: reports.reduce((into, r) => sum(into, r.answers), {}),
    cut: reports.reduce((n, r) => n + r.cut, 0),
    bytesWritten: reports.reduce((n, r) => n + r.bytesWritten, 0),
  };
}

/** A valid create of `size` bytes of JSON (its name padded with spaces after the object). */
export function paddedCreate(id: number, size: number): string {
  const json = JSON.stringify({ id, name: `Plant ${id}` });
  return json + ' '.repeat(size - json.length);
}

/**
 * Sends `body` as one create on its own connection, whole (Content-Length) or in 1-byte chunks
 * (written in 60 KB writes); resolves with the answer's status.
 */
export async function createOnItsOwn(
  target: AttackTarget,
  body: string,
  framing: 'whole' | '1-byte chunks',
): Promise<number> {
  const socket = connect({ host: target.host, port: target.port, localAddress: '127.0.0.2' });
  await once(socket, 'connect');
  const head = `POST /plants HTTP/1.1\r\nHost: plant-store\r\nAuthorization: Bearer ${target.token}\r\nContent-Type: application/json\r\nConnection: close\r\n`;
  const received: Buffer[] = [];
  socket.on('data', (piece: Buffer) => received.push(piece));
  const ended = closed(socket);
  if (framing === 'whole') {
    socket.write(`${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  } else {
    socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n`);
    const wire = Buffer.concat([
      ...[...body].map((byte) => Buffer.from(`1\r\n${byte}\r\n`, 'latin1')),
      Buffer.from('0\r\n\r\n'),
    ]);
    for (let at = 0; at < wire.length; at += 60_000) socket.write(wire.subarray(at, at + 60_000));
  }
  await ended;
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(Buffer.concat(received).toString('latin1'))?.[1];
  return Number(status ?? 0);
}
