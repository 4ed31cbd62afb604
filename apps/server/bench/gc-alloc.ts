import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { APP_ROOT, BENCH_ENV, parseSettings } from './cases.ts';
import { runLoad } from './load.ts';
import { cpuMicros } from './proc-stats.ts';
import { startServerProcess } from './server-process.ts';
import { median } from './stats.ts';

// Allocation and GC per request, which load on a shared machine distorts far less than time:
// each case runs with `--trace-gc-nvp` at a fixed rate; over the measured window the V8 GC
// lines give the bytes allocated and promoted to old space and the scavenge pauses, divided by
// the requests answered. Server CPU µs per request is printed alongside (that one IS
// distorted by other load). Cases are interleaved, repetitions rotate.
//
//   node --import tsx bench/gc-alloc.ts --rate 1500 --seconds 8 --reps 3 \
//     real=dist/main.js before=node_modules/.bench-before/main.js bare koa \
//     semi64=dist/main.js,--max-semi-space-size=64
const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rate: { type: 'string', default: '1500' },
    seconds: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '3' },
    reps: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    node: { type: 'string', multiple: true, default: [] },
    env: { type: 'string', multiple: true, default: [] },
    // Also write a sampling heap profile of every run (young garbage included) into this
    // folder; read it with bench/heap-summary.ts FILE REQUESTS.
    'heap-sample': { type: 'string' },
    // Also record the measured window with `perf record -e cpu-clock -g` (all threads, on-CPU
    // only; the server runs with --perf-basic-prof) into this folder and print the per-part
    // accounting of bench/perf-account.ts.
    perf: { type: 'string' },
    // Start every case from a copy of this SQLite file (e.g. one made by bench/seed.ts).
    seed: { type: 'string' },
  },
});

interface GcCase {
  readonly name: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

const PEERS = new Set(['bare', 'fastify', 'koa']);
const cases: GcCase[] = positionals.map((spec) => {
  if (PEERS.has(spec))
    return { name: spec, args: ['--import', 'tsx', 'bench/peers/main.ts', spec] };
  if (spec === 'modules-floor')
    return { name: spec, args: ['--import', 'tsx', 'bench/floor-main.ts'] };
  const at = spec.indexOf('=');
  if (at < 1)
    throw new Error(`A case is bare, fastify, koa, modules-floor or NAME=BUNDLE, not ${spec}`);
  // NAME=BUNDLE,--v8-flag,…: node options for this case alone (e.g. --max-semi-space-size=64).
  // NAME=BUNDLE,KEY=VALUE,…: environment for this case alone (e.g. LOG_LEVEL=warn; KEY= unsets).
  const [bundle = '', ...extras] = spec.slice(at + 1).split(',');
  const flags = extras.filter((extra) => extra.startsWith('--'));
  const env = parseSettings(extras.filter((extra) => !extra.startsWith('--')));
  return { name: spec.slice(0, at), args: [...flags, bundle], env };
});
const extraEnv = parseSettings(args.env ?? []);
const rate = Number(args.rate);
const seconds = Number(args.seconds);
const reps = Number(args.reps);
const heapSampleDir = args['heap-sample'];
const perfDir = args.perf;
if (perfDir !== undefined) mkdirSync(perfDir, { recursive: true });
if (heapSampleDir !== undefined) mkdirSync(heapSampleDir, { recursive: true });
let runNumber = 0;
const token = `bench-${randomBytes(24).toString('base64url')}`;

interface Sample {
  readonly allocatedKb: number;
  readonly promotedKb: number;
  readonly scavengeMsPerS: number;
  readonly markCompacts: number;
  readonly cpuMicros: number;
  readonly reached: number;
  /** Requests answered in warm-up and window (for a heap profile of the whole run). */
  readonly requests: number;
}

/** A size V8 printed as an unsigned 64-bit number: values from 2^63 on are negative. */
function signed(digits: string): number {
  const value = BigInt(digits);
  return Number(value >= 2n ** 63n ? value - 2n ** 64n : value);
}

/** Sums the GC trace lines (`--trace-gc-nvp`) in `text`. */
function gcTotals(text: string) {
  let allocated = 0;
  let promoted = 0;
  let scavengePause = 0;
  let markCompacts = 0;
  for (const line of text.split('\n')) {
    const kind = / gc=(\w+) /.exec(line)?.[1];
    if (kind === undefined) continue;
    allocated += signed(/ allocated=(\d+)/.exec(line)?.[1] ?? '0');
    promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
    const pause = Number(/ pause=([\d.]+)/.exec(line)?.[1] ?? 0);
    if (kind === 's') scavengePause += pause;
    else markCompacts += 1;
  }
  return { allocated, promoted, scavengePause, markCompacts };
}

/** The environment without the keys set to '' (`NAME=BUNDLE,METRICS_PORT=` unsets METRICS_PORT). */
function withoutEmpty(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
}

async function runOne(gcCase: GcCase): Promise<Sample> {
  const folder = mkdtempSync(join(tmpdir(), `plant-store-gc-${gcCase.name}-`));
  try {
    if (args.seed !== undefined) copyFileSync(args.seed, join(folder, 'plants.db'));
    const logFile = join(folder, 'server.log');
    const server = await startServerProcess(
      [
        ...(args.node ?? []),
        ...(heapSampleDir === undefined
          ? []
          : ['--import', 'tsx', '--import', './bench/heap-sampling.ts']),
        ...(perfDir === undefined ? [] : ['--perf-basic-prof']),
        '--trace-gc-nvp',
        ...gcCase.args,
      ],
      withoutEmpty({
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: '0',
        DATABASE_URL: join(folder, 'plants.db'),
        PLANT_STORE_TOKENS: token,
        LOG_LEVEL: 'info',
        DURABILITY: 'full',
        ...BENCH_ENV,
        ...extraEnv,
        ...gcCase.env,
        ...(heapSampleDir === undefined ? {} : { HEAP_SAMPLING_DIR: heapSampleDir }),
      }),
      logFile,
      APP_ROOT,
    );
    const counter = { next: 0 };
    const load = { url: server.url, token, connections: Number(args.connections), counter };
    try {
      const warmup = await runLoad({
        ...load,
        overallRate: rate,
        durationSeconds: Number(args.warmup),
      });
      const from = statSync(logFile).size;
      const cpuBefore = cpuMicros(server.pid);
      const perfData =
        perfDir === undefined ? undefined : join(perfDir, `${gcCase.name}-${++runNumber}.data`);
      const perf =
        perfData === undefined
          ? undefined
          : spawn(
              'perf',
              [
                'record',
                '-q',
                '-e',
                'cpu-clock',
                '-F',
                '997',
                '-g',
                '-p',
                String(server.pid),
                '-o',
                perfData,
              ],
              { stdio: 'ignore' },
            );
      const result = await runLoad({ ...load, overallRate: rate, durationSeconds: seconds });
      const cpu = cpuMicros(server.pid) - cpuBefore;
      if (perf !== undefined && perfData !== undefined) {
        // perf may have ended already (it could not write its file, say): then do not wait.
        if (perf.exitCode === null && perf.signalCode === null) {
          const stopped = new Promise((resolve) => perf.on('exit', resolve));
          perf.kill('SIGINT');
          await stopped;
        }
        if (perf.exitCode !== 0 && perf.signalCode === null) {
          throw new Error(`perf record ended with exit code ${perf.exitCode} (see ${perfData})`);
        }
        const script = `${perfData}.txt`;
        execFileSync('sh', ['-c', `perf script -i '${perfData}' > '${script}' 2>/dev/null`]);
        const answeredInWindow = result.ok + result.non2xx;
        process.stderr.write(
          execFileSync(
            process.execPath,
            [
              '--import',
              'tsx',
              'bench/perf-account.ts',
              script,
              String(server.pid),
              String(answeredInWindow),
            ],
            { cwd: APP_ROOT, encoding: 'utf8' },
          ),
        );
      }
      const text = readFileSync(logFile).subarray(from).toString('utf8');
      const totals = gcTotals(text);
      const answered = result.ok + result.non2xx;
      if (result.non2xx > 0) throw new Error(`${gcCase.name}: ${result.non2xx} non-2xx answers`);
      return {
        allocatedKb: totals.allocated / answered / 1024,
        promotedKb: totals.promoted / answered / 1024,
        scavengeMsPerS: totals.scavengePause / result.durationSeconds,
        markCompacts: totals.markCompacts,
        cpuMicros: cpu / answered,
        reached: result.requestsPerSecond,
        requests: answered + warmup.ok + warmup.non2xx,
      };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
for (let rep = 0; rep < reps; rep++) {
  const order = cases.map((_, i) => cases[(i + rep) % cases.length] as GcCase);
  for (const gcCase of order) {
    const sample = await runOne(gcCase);
    samples.get(gcCase.name)?.push(sample);
    process.stderr.write(
      `rep ${rep + 1} ${gcCase.name}: ${sample.allocatedKb.toFixed(1)} KB alloc/req, ` +
        `${sample.promotedKb.toFixed(2)} KB promoted/req, scavenge ${sample.scavengeMsPerS.toFixed(1)} ms/s, ` +
        `${sample.markCompacts} mark-compacts, ${sample.cpuMicros.toFixed(1)} µs CPU/req at ${sample.reached.toFixed(0)} req/s, ` +
        `${sample.requests} requests in all\n`,
    );
  }
}
process.stdout.write(
  `\n| case | KB allocated/req | KB promoted/req | scavenge ms/s | CPU µs/req (under load) |\n|---|---|---|---|---|\n`,
);
for (const [name, list] of samples) {
  const m = (pick: (s: Sample) => number) => median(list.map(pick));
  process.stdout.write(
    `| ${name} | ${m((s) => s.allocatedKb).toFixed(1)} | ${m((s) => s.promotedKb).toFixed(2)} | ` +
      `${m((s) => s.scavengeMsPerS).toFixed(1)} | ${m((s) => s.cpuMicros).toFixed(1)} |\n`,
  );
}
