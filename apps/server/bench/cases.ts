import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type LoadResult, runLoad } from './load.ts';
import type { BenchPostgres } from './postgres.ts';
import { cpuMicros } from './proc-stats.ts';
import { countSqliteRows } from './seed.ts';
import { startServerProcess } from './server-process.ts';

/** The server package's folder (where `dist/main.js` is built). */
export const APP_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What runs behind the port: the deployed server, the node:http floor, or the server on PostgreSQL. */
export type CaseKind = 'real' | 'floor' | 'postgres';

/**
 * Settings every benchmarked server gets on top of its deployed defaults: the per-credential
 * rate limit is raised far above what one benchmark client sends (the limiter still runs on
 * every request; it just never refuses one).
 */
export const BENCH_ENV: Readonly<Record<string, string>> = {
  RATE_LIMIT_PER_MINUTE: '1000000000',
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
}

export interface BenchSettings {
  readonly token: string;
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
  /** Nice value of the server processes (the bench process sets its own the same). */
  readonly priority: number;
  /** A fixed total request rate for every run (req/s); as fast as it goes when absent. */
  readonly overallRate?: number;
  /** Added to (and overriding) every server process's environment. */
  readonly extraEnv: Readonly<Record<string, string>>;
  /** Directory for `--cpu-prof` profiles of the server, when profiling. */
  readonly cpuProfileDir?: string;
  readonly postgres?: BenchPostgres;
}

export interface CaseRun {
  readonly name: string;
  readonly rep: number;
  readonly requestsPerSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  /** Server CPU (user + system) per measured request, in microseconds. */
  readonly cpuMicrosPerRequest: number;
  /** The load generator's CPU (this process) per measured request, in microseconds. */
  readonly clientCpuMicrosPerRequest: number;
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
      ...(benchCase.kind === 'floor'
        ? ['--import', 'tsx', 'bench/floor-main.ts']
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
      },
      logFile,
      APP_ROOT,
      settings.priority,
    );
    const counter = { next: 0 };
    const load = {
      url: server.url,
      token: settings.token,
      connections: settings.connections,
      ...(settings.overallRate === undefined ? {} : { overallRate: settings.overallRate }),
    };
    let warm: LoadResult;
    let measured: LoadResult;
    let cpu: number;
    let clientCpu: number;
    let exitCode: number | string = 'not stopped';
    try {
      warm = await runLoad({ ...load, durationSeconds: settings.warmupSeconds, counter });
      const cpuBefore = cpuMicros(server.pid);
      const clientBefore = process.cpuUsage();
      measured = await runLoad({ ...load, durationSeconds: settings.durationSeconds, counter });
      const clientUsed = process.cpuUsage(clientBefore);
      clientCpu = clientUsed.user + clientUsed.system;
      cpu = cpuMicros(server.pid) - cpuBefore;
    } finally {
      exitCode = await server.stop();
    }
    if (exitCode !== 0) throw new Error(`${benchCase.name} server exited with ${exitCode}`);
    const sent = warm.sent + measured.sent;
    const ok = warm.ok + measured.ok;
    const non2xx = warm.non2xx + measured.non2xx;
    const errors = warm.errors + measured.errors;
    const storedRows = await store.countRows();
    const expectedRows = benchCase.seedRows + sent;
    const requestLogLines = benchCase.kind === 'floor' ? -1 : countRequestLines(logFile);
    const problems: string[] = [];
    if (non2xx > 0) {
      const statuses = [warm.statuses, measured.statuses]
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
    if (sent - ok - non2xx > 2 * settings.connections) {
      problems.push(`${sent - ok - non2xx} requests sent but not answered`);
    }
    if (requestLogLines !== -1 && requestLogLines < ok + non2xx) {
      problems.push(`${requestLogLines} request log lines for ${ok + non2xx} requests`);
    }
    const completed = measured.ok + measured.non2xx;
    return {
      name: benchCase.name,
      rep,
      requestsPerSecond: measured.requestsPerSecond,
      latencyP50Ms: measured.latencyP50Ms,
      latencyP99Ms: measured.latencyP99Ms,
      cpuMicrosPerRequest: completed === 0 ? Number.NaN : cpu / completed,
      clientCpuMicrosPerRequest: completed === 0 ? Number.NaN : clientCpu / completed,
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
