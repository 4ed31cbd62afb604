import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, type Case, prepareCase } from './cases.ts';
import { cpuMicros, freePort, startServer } from './proc.ts';
import { median } from './report.ts';

// The unauthenticated GETs of the API reference's files: what one costs the server in CPU, for
// each encoding a client may ask for (target: ≤ 2,000 µs each). Anyone can send them, so none
// may cost much more than a create.

/** The files, and the Accept-Encoding of each row (none: the identity file). */
export const ASSET_PATHS = ['/docs/assets/api-reference.js', '/docs', '/openapi.json'] as const;
export const ASSET_ENCODINGS = [
  ['identity', undefined],
  ['gzip', 'gzip'],
  ['br', 'br'],
] as const;

export interface AssetGet {
  readonly path: string;
  readonly encoding: string;
  /** The body's size as sent. */
  readonly bytes: number;
  /** Server CPU (user + system, /proc/<pid>/stat) per GET, in µs. */
  readonly cpuMicros: number;
}

/** One run: a fresh process of `c`, `gets` GETs of each file in each encoding. */
export interface AssetGetRun {
  readonly rep: number;
  readonly rows: readonly AssetGet[];
  readonly failures: readonly string[];
}

/** A GET read to its end: status, Content-Encoding and the body's size as sent. */
function get(agent: Agent, url: string, accept: string | undefined) {
  return new Promise<{ status: number; encoding: string; bytes: number }>((resolve, reject) => {
    const headers = accept === undefined ? {} : { 'accept-encoding': accept };
    request(url, { agent, headers }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          encoding: response.headers['content-encoding'] ?? 'identity',
          bytes,
        }),
      );
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/**
 * Starts `c` fresh, then for each file and encoding: 5 GETs to warm, then `gets` GETs on two
 * keep-alive connections, the server's CPU growth divided by `gets`. A status other than 200
 * or another encoding than asked is a failure.
 *
 * @example
 * const run = await measureAssetGets(realCase, 1, 200);
 */
export async function measureAssetGets(c: Case, rep: number, gets: number): Promise<AssetGetRun> {
  const folder = mkdtempSync(join(tmpdir(), `plant-store-bench-assets-${c.name}-`));
  const port = await freePort();
  const rows: AssetGet[] = [];
  const failures: string[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const { env } = prepareCase(c, join(folder, 'plants.db'), port);
    server = await startServer(c.args, env, port, join(folder, 'server.log'), BENCH_DIR);
    const url = `http://127.0.0.1:${port}`;
    for (const path of ASSET_PATHS) {
      for (const [encoding, accept] of ASSET_ENCODINGS) {
        const first = await get(agent, `${url}${path}`, accept);
        if (first.status !== 200 || first.encoding !== encoding) {
          failures.push(`${path} ${encoding}: ${first.status} as ${first.encoding}`);
          continue;
        }
        for (let i = 0; i < 4; i++) await get(agent, `${url}${path}`, accept);
        const before = cpuMicros(server.pid);
        let sent = 0;
        const worker = async () => {
          while (sent < gets) {
            sent++;
            await get(agent, `${url}${path}`, accept);
          }
        };
        await Promise.all([worker(), worker()]);
        rows.push({
          path,
          encoding,
          bytes: first.bytes,
          cpuMicros: (cpuMicros(server.pid) - before) / gets,
        });
      }
    }
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    agent.destroy();
    const exit = await server?.stop();
    if (exit !== undefined && exit !== 0) failures.push(`exit ${exit} after SIGTERM`);
  }
  if (failures.length === 0) rmSync(folder, { recursive: true, force: true });
  else failures.push(`kept ${folder}`);
  return { rep, rows, failures };
}

/**
 * The report's section: per file and encoding, the median CPU µs per GET over the runs
 * (min–max), beside `createMicros`, the create's CPU per request from the same runs.
 */
export function renderAssetGets(runs: readonly AssetGetRun[], createMicros: number): string[] {
  const ok = runs.filter((run) => run.failures.length === 0);
  const out = [
    '',
    '## Unauthenticated asset GETs: server CPU µs per request (median, min–max)',
    '',
    `Each file of the API reference as a client without a credential asks for it, ${ok.length} fresh process(es) of \`real\`; a create (\`real\`, lowest rate) costs ${Number.isNaN(createMicros) ? '—' : createMicros.toFixed(1)} µs. Target: ≤ 2,000 µs whatever the encoding.`,
    '',
    '| GET | encoding | bytes sent | CPU µs/req | × a create |',
    '|---|---|---:|---:|---:|',
  ];
  for (const path of ASSET_PATHS) {
    for (const [encoding] of ASSET_ENCODINGS) {
      const rows = ok.flatMap((run) =>
        run.rows.filter((row) => row.path === path && row.encoding === encoding),
      );
      if (rows.length === 0) continue;
      const cpu = rows.map((row) => row.cpuMicros);
      const mid = median(cpu);
      out.push(
        `| ${path} | ${encoding} | ${rows[0]?.bytes ?? '—'} | ${mid.toFixed(0)} (${Math.min(...cpu).toFixed(0)}–${Math.max(...cpu).toFixed(0)}) | ${(mid / createMicros).toFixed(1)} |`,
      );
    }
  }
  for (const run of runs.filter((run) => run.failures.length > 0)) {
    out.push('', `Asset run ${run.rep} FAILED: ${run.failures.join('; ')}`);
  }
  return out;
}
