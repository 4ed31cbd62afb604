import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP_ROOT, BENCH_ENV } from './cases.ts';
import { runLoad } from './load.ts';
import { cpuMicros, rssBytes } from './proc-stats.ts';
import { countSqliteRows } from './seed.ts';
import { startServerProcess } from './server-process.ts';
import { slope } from './stats.ts';

export interface SoakOptions {
  readonly token: string;
  readonly connections: number;
  readonly rate: number;
  readonly minutes: number;
  readonly sampleSeconds: number;
  /** Nice value of the server process. */
  readonly priority: number;
  /** The server bundle to run; default `dist/main.js`. */
  readonly entry?: string;
  /** Added to (and overriding) the server's environment. */
  readonly extraEnv: Readonly<Record<string, string>>;
  /** Printed as each sample is taken. */
  readonly onSample: (sample: RssSample) => void;
}

export interface RssSample {
  readonly seconds: number;
  readonly rssMiB: number;
}

export interface SoakResult {
  readonly rate: number;
  readonly minutes: number;
  readonly samples: readonly RssSample[];
  readonly requestsPerSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly cpuMicrosPerRequest: number;
  /** Requests sent; the ≤ connections still in flight at the end are stored but unanswered. */
  readonly sent: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly storedRows: number;
  /** RSS growth per minute over the second half of the soak (least squares), MiB. */
  readonly rssSlopeMiBPerMinute: number;
}

/**
 * Runs the deployed server (SQLite FULL, info logging to a file) under a fixed request rate
 * for `minutes`, sampling its resident set size every `sampleSeconds`.
 *
 * @example
 * const result = await soak({ token, connections: 50, rate: 2000, minutes: 10, sampleSeconds: 10, onSample: console.log });
 */
export async function soak(options: SoakOptions): Promise<SoakResult> {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-soak-'));
  try {
    const file = join(folder, 'plants.db');
    const server = await startServerProcess(
      [options.entry ?? 'dist/main.js'],
      {
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: '0',
        DATABASE_URL: file,
        PLANT_STORE_TOKENS: options.token,
        LOG_LEVEL: 'info',
        DURABILITY: 'full',
        ...BENCH_ENV,
        ...options.extraEnv,
      },
      join(folder, 'server.log'),
      APP_ROOT,
      options.priority,
    );
    const samples: RssSample[] = [];
    const started = Date.now();
    const take = () => {
      const sample = {
        seconds: Math.round((Date.now() - started) / 1000),
        rssMiB: rssBytes(server.pid) / 2 ** 20,
      };
      samples.push(sample);
      options.onSample(sample);
    };
    take();
    const timer = setInterval(take, options.sampleSeconds * 1000);
    const cpuBefore = cpuMicros(server.pid);
    let load: Awaited<ReturnType<typeof runLoad>>;
    let cpu: number;
    let exitCode: number | string = 'not stopped';
    try {
      load = await runLoad({
        url: server.url,
        token: options.token,
        connections: options.connections,
        durationSeconds: Math.round(options.minutes * 60),
        overallRate: options.rate,
        counter: { next: 0 },
      });
      cpu = cpuMicros(server.pid) - cpuBefore;
      take();
    } finally {
      clearInterval(timer);
      exitCode = await server.stop();
    }
    if (exitCode !== 0) throw new Error(`soak server exited with ${exitCode}`);
    const secondHalf = samples.filter((s) => s.seconds >= (options.minutes * 60) / 2);
    const completed = load.ok + load.non2xx;
    return {
      rate: options.rate,
      minutes: options.minutes,
      samples,
      requestsPerSecond: load.requestsPerSecond,
      latencyP50Ms: load.latencyP50Ms,
      latencyP99Ms: load.latencyP99Ms,
      cpuMicrosPerRequest: completed === 0 ? Number.NaN : cpu / completed,
      sent: load.sent,
      ok: load.ok,
      non2xx: load.non2xx,
      errors: load.errors,
      storedRows: countSqliteRows(file),
      rssSlopeMiBPerMinute:
        secondHalf.length < 2
          ? Number.NaN
          : slope(
              secondHalf.map((s) => s.seconds / 60),
              secondHalf.map((s) => s.rssMiB),
            ),
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * No non-2xx, no connection error, every answered create stored and nothing stored that was
 * not sent: 2xx ≤ rows ≤ sent. (Under a fixed rate autocannon counts a few requests as sent in
 * the last second that never reach the server, so rows = sent does not hold exactly.)
 *
 * @example
 * if (!soakChecksPass(result)) process.exitCode = 1;
 */
export function soakChecksPass(result: SoakResult): boolean {
  return (
    result.non2xx + result.errors === 0 &&
    result.storedRows >= result.ok &&
    result.storedRows <= result.sent
  );
}

/**
 * The soak result as Markdown: rate, latency, checks and the RSS samples.
 *
 * @example
 * writeFileSync('bench/results/soak.md', renderSoakMarkdown(result, header));
 */
export function renderSoakMarkdown(result: SoakResult, header: string): string {
  const first = result.samples[0]?.rssMiB ?? Number.NaN;
  const peak = Math.max(...result.samples.map((s) => s.rssMiB));
  const last = result.samples.at(-1)?.rssMiB ?? Number.NaN;
  return [
    header,
    '',
    `| fixed rate | achieved req/s | p50 ms | p99 ms | CPU µs/req | sent | 2xx | non-2xx | errors | rows |`,
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${result.rate} | ${result.requestsPerSecond.toFixed(0)} | ${result.latencyP50Ms.toFixed(2)} | ` +
      `${result.latencyP99Ms.toFixed(2)} | ${result.cpuMicrosPerRequest.toFixed(1)} | ${result.sent} | ${result.ok} | ` +
      `${result.non2xx} | ${result.errors} | ${result.storedRows} |`,
    '',
    `Checks (no non-2xx, no connection error, 2xx ≤ stored rows ≤ sent): ${
      soakChecksPass(result) ? 'ok' : 'FAILED'
    }.`,
    '',
    `RSS: ${first.toFixed(1)} MiB at start, ${peak.toFixed(1)} MiB peak, ${last.toFixed(1)} MiB at the end; ` +
      `trend over the second half ${result.rssSlopeMiBPerMinute.toFixed(2)} MiB/min.`,
    '',
    '| s | RSS MiB |',
    '|---:|---:|',
    ...result.samples.map((s) => `| ${s.seconds} | ${s.rssMiB.toFixed(1)} |`),
    '',
  ].join('\n');
}
