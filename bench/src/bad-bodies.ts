import { connect } from 'node:net';
import autocannon from 'autocannon';
import { benchId, type LoadResult, runLoad } from './load.ts';
import { cpuMicros } from './proc.ts';

/** Room for a bad body under the bench's 64 KiB BODY_LIMIT (`COMMON_ENV`). */
const ROOM = 65_000;

/** `{"id":1,"name":"Fern",unit(0),unit(1),…}` as long as fits in ROOM. */
function filled(unit: (i: number) => string): string {
  const parts = ['"id":1,"name":"Fern"'];
  let length = parts[0]?.length ?? 0;
  for (let i = 0; length + unit(i).length + 3 < ROOM; i++) {
    parts.push(unit(i));
    length += unit(i).length + 1;
  }
  return `{${parts.join(',')}}`;
}

/**
 * Invalid NewPlants of about 64 KB, one per hostile shape (each answered 400): what they cost
 * the server per request is set beside a valid create at the same rate (target: ≤ 3×).
 */
export const BAD_BODIES: readonly { readonly name: string; readonly body: string }[] = [
  { name: 'many keys', body: filled((i) => `"k${i}":1`) },
  {
    name: 'deep nesting',
    body: `{"id":1,"name":"Fern","a":[${Array(Math.floor(ROOM / 122))
      .fill(`${'['.repeat(60)}${']'.repeat(60)}`)
      .join(',')}]}`,
  },
  { name: 'long string', body: `{"id":1,"name":"${'x'.repeat(ROOM - 30)}"}` },
  {
    name: 'long array',
    body: `{"id":1,"name":"Fern","a":[${'1,'.repeat(Math.floor((ROOM - 40) / 2))}1]}`,
  },
];

export interface BadBodyRow {
  readonly name: string;
  /** Server CPU µs per answered request. */
  readonly cpuMicros: number;
  readonly answered: number;
  /** Answers with another status than expected (200 for the create, 400 for a bad body). */
  readonly unexpected: number;
}

export interface BadBodyOptions {
  readonly url: string;
  readonly token: string;
  readonly pid: number;
  readonly rate: number;
  readonly seconds: number;
  /** The run's request numbers (the create row sends fresh ids through it). */
  readonly counter: { next: number };
}

/**
 * The create, then each bad body, at `rate` req/s for `seconds` each on 10 connections: the
 * server's CPU (from /proc) per answered request, and how many answers were not what the
 * body deserves.
 *
 * @example
 * const rows = await measureBadBodies({ url, token, pid, rate: 500, seconds: 3, counter });
 */
export async function measureBadBodies(options: BadBodyOptions): Promise<BadBodyRow[]> {
  const rows: BadBodyRow[] = [];
  const { url, token, pid, rate, seconds, counter } = options;
  let before = cpuMicros(pid);
  const create: LoadResult = await runLoad({ url, token, connections: 10, seconds, rate, counter });
  rows.push({
    name: 'valid create',
    cpuMicros: (cpuMicros(pid) - before) / create.answered,
    answered: create.answered,
    unexpected: create.non2xx + create.errors,
  });
  for (const { name, body } of BAD_BODIES) {
    before = cpuMicros(pid);
    const result = await send(url, token, body, rate, seconds);
    const used = cpuMicros(pid) - before;
    const answered = result['2xx'] + result.non2xx;
    const refused = result.statusCodeStats?.['400']?.count ?? 0;
    rows.push({
      name,
      cpuMicros: used / answered,
      answered,
      unexpected: answered - refused + result.errors + result.timeouts,
    });
  }
  for (const framing of ['once', 'length', 'chunked'] as const) {
    before = cpuMicros(pid);
    const statuses: number[] = [];
    for (let i = 0; i < DRIPPED_CREATES; i++) {
      statuses.push(await drip(url, token, counter.next++, framing));
    }
    rows.push({
      name: {
        once: '60 KB create, one write, a connection of its own',
        length: '60 KB create, 60,000 1-byte writes (× the one write)',
        chunked: '60 KB create, chunked, 1-byte chunks (× the one write)',
      }[framing],
      cpuMicros: (cpuMicros(pid) - before) / statuses.length,
      answered: statuses.length,
      // Stored (200), or refused in the Error shape for arriving in too many pieces (400).
      unexpected: statuses.filter((status) => status !== 200 && status !== 400).length,
    });
  }
  return rows;
}

/** Valid creates sent byte by byte per framing: 30, so /proc's 10 ms ticks resolve them. */
const DRIPPED_CREATES = 30;

/**
 * One valid create of 60,000 bytes (the plant, then spaces) on a connection of its own with
 * Nagle off: Content-Length framing written one byte per write, or chunked framing with one
 * 1-byte chunk per write, reading between writes. Resolves with the answer's status once the
 * server closes (it may refuse the body midway and close: the writes then fail).
 */
function drip(url: string, token: string, id: number, framing: 'once' | 'length' | 'chunked') {
  const head = `{"id":${benchId(id)},"name":"Fern"`;
  const body = `${head}${' '.repeat(60_000 - head.length - 1)}}`;
  const { hostname, port } = new URL(url);
  return new Promise<number>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port), noDelay: true });
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.setTimeout(60_000, () => socket.destroy());
    socket.once('connect', async () => {
      const framingHeader =
        framing === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${body.length}`;
      socket.write(
        `POST /plants HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\nconnection: close\r\n${framingHeader}\r\n\r\n`,
      );
      if (framing === 'once') {
        socket.write(body);
        return;
      }
      let writes = 0;
      for (const byte of body) {
        if (socket.destroyed) return;
        const written = socket.write(framing === 'length' ? byte : `1\r\n${byte}\r\n`);
        if (!written) await new Promise((drained) => socket.once('drain', drained));
        // Let the answer in: a loop of writes alone never reads.
        if (++writes % 4 === 0) await new Promise((turn) => setImmediate(turn));
      }
      if (framing === 'chunked') socket.write('0\r\n\r\n');
    });
  });
}

function send(
  url: string,
  token: string,
  body: string,
  rate: number,
  seconds: number,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: 10,
        duration: seconds,
        overallRate: rate,
        requests: [
          {
            method: 'POST',
            path: '/plants',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body,
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}
