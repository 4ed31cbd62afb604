import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type LoadResult, runLoad } from './load.ts';
import type { BenchPostgres } from './postgres.ts';
import { treeCpuMicros } from './proc-stats.ts';
import { countSqliteRows } from './seed.ts';
import { startServerProcess } from './server-process.ts';

/** The server package's folder (where `dist/main.js` is built). */
export const APP_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * What runs behind the port: the deployed server on SQLite (`real`) or PostgreSQL
 * (`postgres`); a peer that uses no project module (`bare` node:http, `fastify`, stock `koa`;
 * bench/peers/); or the project's own modules behind a bare node:http handler (`modules-floor`).
 */
export type CaseKind = 'real' | 'bare' | 'fastify' | 'koa' | 'postgres' | 'modules-floor';

export const CASE_KINDS: readonly CaseKind[] = [
  'real',
  'bare',
  'fastify',
  'koa',
  'postgres',
  'modules-floor',
];

/** The peers: same durable commit and checks, no project module (bench/peers/main.ts). */
const PEER_KINDS: readonly CaseKind[] = ['bare', 'fastify', 'koa'];
/** The cases that run the server itself and write its request log. */
const SERVER_KINDS: readonly CaseKind[] = ['real', 'postgres'];

/**
 * `KEY=VALUE` settings (from `--env`, or after a case's bundle) as an environment; the value is
 * everything after the first `=`.
 *
 * @example
 * parseSettings(['LOG_LEVEL=warn', 'METRICS_PORT=']); // { LOG_LEVEL: 'warn', METRICS_PORT: '' }
 */
export function parseSettings(pairs: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`A setting is KEY=VALUE, not ${pair}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/**
 * Settings every benchmarked server gets on top of its deployed defaults: the per-credential
 * rate limit is RAISED far above what one benchmark client sends (the default, 100 a second
 * after a burst of 200, would answer 429 to a load test; the limiter still runs on every
 * request, it just never refuses one), and metrics are on (their listener on a free port), as
 * in a deployment that is scraped.
 */
export const BENCH_ENV: Readonly<Record<string, string>> = {
  RATE_LIMIT_PER_SECOND: '1000000000',
  // The bucket's size too: with the default burst of 200 the bucket refills in 0.2 µs, finer
  // than the PostgreSQL-shared bucket's clock, which then refused ~58,000 of a run's requests.
  RATE_LIMIT_BURST: '1000000000',
  METRICS_PORT: '0',
};

export interface BenchCase {
  /** Name in the results, e.g. `real`, `real-seeded`. */
  readonly name: string;
  readonly kind: CaseKind;
  /** The SQLite file to start from (a copy is used); absent: an empty store. */
  readonly seedFile?: string;
  /** Rows in `seedFile`. */
  readonly seedRows: number;
  /** The server bundle to run (real and postgres kinds); default `dist/main.js`. */
  readonly entry?: string;
  /** Environment of this case's server on top of the others (e.g. WEB_CONCURRENCY). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface BenchSettings {
  readonly token: string;
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
  /** Nice value of the server processes (the bench process sets its own the same). */
  readonly priority: number;
  /** Measure a window at saturation (as fast as it goes). */
  readonly saturation: boolean;
  /** Then measure a window at this fixed total request rate (req/s), for CPU per request. */
  readonly fixedRate?: number;
  /** Added to (and overriding) every server process's environment. */
  readonly extraEnv: Readonly<Record<string, string>>;
  /** Directory for `--cpu-prof` profiles of the server, when profiling. */
  readonly cpuProfileDir?: string;
  readonly postgres?: BenchPostgres;
}

/** One measured load window of a run. */
export interface MeasuredWindow {
  readonly requestsPerSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  /** Server CPU (user + system, all threads) per completed request, in microseconds. */
  readonly cpuMicrosPerRequest: number;
  /** The load generator's CPU (this process) per completed request, in microseconds. */
  readonly clientCpuMicrosPerRequest: number;
}

export interface CaseRun {
  readonly name: string;
  readonly kind: CaseKind;
  readonly rep: number;
  /** The saturation window (NaN when only a fixed rate was measured). */
  readonly requestsPerSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  /** Server CPU (user + system) per measured request, in microseconds. */
  readonly cpuMicrosPerRequest: number;
  /** The load generator's CPU (this process) per measured request, in microseconds. */
  readonly clientCpuMicrosPerRequest: number;
  /** The window at a fixed rate, when one was measured. */
  readonly fixedRate?: MeasuredWindow & { readonly targetRate: number };
  /** Requests sent in warm-up and measurement; the last ≤ connections of each load run are
   * still in flight when autocannon stops, so they are stored but not counted as answered. */
  readonly sent: number;
  /** 2xx answers in warm-up and measurement. */
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  /** Rows in the store after the run, and how many there should be (seeded + sent). */
  readonly storedRows: number;
  readonly expectedRows: number;
  /** Request log lines the server wrote (real server only; -1 when not counted). */
  readonly requestLogLines: number;
  /** No non-2xx, no errors, stored rows = seeded + sent, ≤ connections unanswered per load run. */
  readonly verified: boolean;
  readonly problems: readonly string[];
  /** 1-minute load average of the machine before and after the run (other work on it). */
  readonly loadBefore: number;
  readonly loadAfter: number;
}

/**
 * One repetition of one case: a fresh store, a fresh server process, a warm-up, the measured
 * load, a graceful stop, then the checks (no non-2xx, rows = seeded + 2xx).
 *
 * @example
 * const run = await runCase({ name: 'real', kind: 'real', seedRows: 0 }, 1, settings);
 */
export async function runCase(
  benchCase: BenchCase,
  rep: number,
  settings: BenchSettings,
): Promise<CaseRun> {
  const folder = mkdtempSync(join(tmpdir(), `plant-store-bench-${benchCase.name}-`));
  const loadBefore = loadavg()[0] ?? Number.NaN;
  try {
    const store = await prepareStore(benchCase, folder, settings);
    // The server's stdout (its JSON log) goes to a file, as a deployment would keep it.
    const logFile = join(folder, 'server.log');
    const nodeArgs = [
      ...(settings.cpuProfileDir === undefined
        ? []
        : ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfileDir}`]),
      ...(benchCase.kind === 'modules-floor'
        ? ['--import', 'tsx', 'bench/floor-main.ts']
        : PEER_KINDS.includes(benchCase.kind)
          ? ['--import', 'tsx', 'bench/peers/main.ts', benchCase.kind]
          : [benchCase.entry ?? 'dist/main.js']),
    ];
    const server = await startServerProcess(
      nodeArgs,
      {
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: '0',
        DATABASE_URL: store.databaseUrl,
        PLANT_STORE_TOKENS: settings.token,
        LOG_LEVEL: 'info',
        DURABILITY: 'full',
        ...BENCH_ENV,
        ...settings.extraEnv,
        ...benchCase.env,
      },
      logFile,
      APP_ROOT,
      settings.priority,
    );
    const counter = { next: 0 };
    const load = { url: server.url, token: settings.token, connections: settings.connections };
    // The warm-up (at the fixed rate when there is one), the fixed-rate window, then the
    // saturation window: one server process, one store, one id stream. Every case reaches the
    // fixed-rate window with the same rows stored (when it keeps up with the rate).
    const loads: LoadResult[] = [];
    let saturated: Measured | undefined;
    let fixed: Measured | undefined;
    let exitCode: number | string = 'not stopped';
    try {
      loads.push(
        await runLoad({
          ...load,
          ...(settings.fixedRate === undefined ? {} : { overallRate: settings.fixedRate }),
          durationSeconds: settings.warmupSeconds,
          counter,
        }),
      );
      const measure = async (overallRate?: number): Promise<Measured> => {
        const cpuBefore = treeCpuMicros(server.pid);
        const clientBefore = process.cpuUsage();
        const result = await runLoad({
          ...load,
          ...(overallRate === undefined ? {} : { overallRate }),
          durationSeconds: settings.durationSeconds,
          counter,
        });
        const clientUsed = process.cpuUsage(clientBefore);
        loads.push(result);
        return {
          result,
          cpu: treeCpuMicros(server.pid) - cpuBefore,
          clientCpu: clientUsed.user + clientUsed.system,
        };
      };
      if (settings.fixedRate !== undefined) fixed = await measure(settings.fixedRate);
      if (settings.saturation) saturated = await measure();
    } finally {
      exitCode = await server.stop();
    }
    if (exitCode !== 0) throw new Error(`${benchCase.name} server exited with ${exitCode}`);
    const sum = (pick: (result: LoadResult) => number) =>
      loads.reduce((total, result) => total + pick(result), 0);
    const sent = sum((result) => result.sent);
    const ok = sum((result) => result.ok);
    const non2xx = sum((result) => result.non2xx);
    const errors = sum((result) => result.errors);
    const storedRows = await store.countRows();
    const expectedRows = benchCase.seedRows + sent;
    const requestLogLines = SERVER_KINDS.includes(benchCase.kind) ? countRequestLines(logFile) : -1;
    const problems: string[] = [];
    if (non2xx > 0) {
      const statuses = loads
        .map((result) => result.statuses)
        .flatMap((byCode) => Object.entries(byCode))
        .filter(([code]) => !code.startsWith('2'))
        .map(([code, count]) => `${count}× ${code}`);
      problems.push(`${non2xx} non-2xx answers (${statuses.join(', ')})`);
    }
    if (errors > 0) problems.push(`${errors} connection errors or timeouts`);
    // Every answered create is stored, and nothing is stored that was not sent. (Without a
    // rate limit the two meet: rows = seeded + sent, the last ≤ connections unanswered.)
    if (storedRows < benchCase.seedRows + ok || storedRows > expectedRows) {
      problems.push(
        `${storedRows} rows stored, expected ${benchCase.seedRows + ok}..${expectedRows} (seeded + 2xx..sent)`,
      );
    }
    if (sent - ok - non2xx > loads.length * settings.connections) {
      problems.push(`${sent - ok - non2xx} requests sent but not answered`);
    }
    if (requestLogLines !== -1 && requestLogLines < ok + non2xx) {
      problems.push(`${requestLogLines} request log lines for ${ok + non2xx} requests`);
    }
    const none = windowOf(undefined);
    return {
      name: benchCase.name,
      kind: benchCase.kind,
      rep,
      ...(saturated === undefined ? none : windowOf(saturated)),
      ...(fixed === undefined || settings.fixedRate === undefined
        ? {}
        : { fixedRate: { targetRate: settings.fixedRate, ...windowOf(fixed) } }),
      sent,
      ok,
      non2xx,
      errors,
      storedRows,
      expectedRows,
      requestLogLines,
      verified: problems.length === 0,
      problems,
      loadBefore,
      loadAfter: loadavg()[0] ?? Number.NaN,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

interface Measured {
  readonly result: LoadResult;
  /** Server and load generator CPU over the window, µs. */
  readonly cpu: number;
  readonly clientCpu: number;
}

function windowOf(measured: Measured | undefined): MeasuredWindow {
  const completed = measured === undefined ? 0 : measured.result.ok + measured.result.non2xx;
  if (measured === undefined || completed === 0) {
    return {
      requestsPerSecond: Number.NaN,
      latencyP50Ms: Number.NaN,
      latencyP99Ms: Number.NaN,
      cpuMicrosPerRequest: Number.NaN,
      clientCpuMicrosPerRequest: Number.NaN,
    };
  }
  const { result, cpu, clientCpu } = measured;
  return {
    requestsPerSecond: result.requestsPerSecond,
    latencyP50Ms: result.latencyP50Ms,
    latencyP99Ms: result.latencyP99Ms,
    cpuMicrosPerRequest: cpu / completed,
    clientCpuMicrosPerRequest: clientCpu / completed,
  };
}

interface PreparedStore {
  readonly databaseUrl: string;
  countRows(): Promise<number>;
}

async function prepareStore(
  benchCase: BenchCase,
  folder: string,
  settings: BenchSettings,
): Promise<PreparedStore> {
  if (benchCase.kind === 'postgres') {
    if (settings.postgres === undefined) throw new Error('PostgreSQL is not running');
    const databaseUrl = await settings.postgres.freshDatabase();
    return { databaseUrl, countRows: () => countPostgresRows(databaseUrl) };
  }
  const file = join(folder, 'plants.db');
  if (benchCase.seedFile !== undefined) copyFileSync(benchCase.seedFile, file);
  return { databaseUrl: file, countRows: async () => countSqliteRows(file) };
}

async function countPostgresRows(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>('SELECT count(*) AS n FROM plants');
    return Number(result.rows[0]?.n ?? Number.NaN);
  } finally {
    await client.end();
  }
}

/** Lines of the request log (pino JSON lines whose message is `request`). */
function countRequestLines(logFile: string): number {
  const text = readFileSync(logFile, 'utf8');
  let count = 0;
  let at = text.indexOf('"msg":"request"');
  while (at !== -1) {
    count += 1;
    at = text.indexOf('"msg":"request"', at + 1);
  }
  return count;
}
