import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type AssetGetRun, measureAssetGets, renderAssetGets } from './asset-gets.ts';
import { type BadBodyRow, measureBadBodies } from './bad-bodies.ts';
import {
  ablationCases,
  BENCH_DIR,
  type Case,
  prepareCase,
  serverCase,
  standardCases,
} from './cases.ts';
import { type BodyShape, type LoadResult, runLoad } from './load.ts';
import { checkWritable, outPath } from './out-path.ts';
import { storedPlants } from './peers/sqlite-commit.ts';
import { type ChildServer, cpuMicros, freePort, startServer } from './proc.ts';
import { median, type Pair, type Run, renderReport } from './report.ts';
import { renderMaintenanceDelays } from './sweep-delay.ts';

// `pnpm bench [-- options]`: see README.md.
const { values: args } = parseArgs({
  // `pnpm bench -- --quick` may hand over the `--` itself.
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    reps: { type: 'string', default: '5' },
    // `probe`: the probe shape (`--body probe --schedule interleaved`, 5-s windows, no extras).
    shape: { type: 'string', default: 'bench' },
    body: { type: 'string' },
    schedule: { type: 'string' },
    quick: { type: 'boolean', default: false },
    server: { type: 'string', multiple: true, default: [] },
    ablation: { type: 'boolean', default: false },
    rates: { type: 'string', default: '1000,2000,4000' },
    seconds: { type: 'string' },
    // Seconds at 2000 req/s before the windows: the JIT compiles long after a short warm-up
    // (results/warmup.md).
    warmup: { type: 'string', default: '20' },
    cases: { type: 'string' },
    out: { type: 'string' },
    'bad-bodies-rate': { type: 'string', default: '500' },
    // GETs per file and encoding in the asset section (0: no section); 200, or 50 with --quick.
    assets: { type: 'string' },
  },
});
const shape = oneOf('shape', args.shape, ['bench', 'probe']);
const probe = shape === 'probe';
const bodyName = oneOf('body', args.body ?? shape, ['bench', 'probe']);
// `together`: as `interleaved`, but each repetition loads every case at once (README.md).
const schedule = oneOf('schedule', args.schedule ?? (probe ? 'interleaved' : 'fresh'), [
  'fresh',
  'interleaved',
  'together',
]);
const reps = args.quick ? 1 : positive('reps', args.reps);
const seconds = args.quick ? 2 : positive('seconds', args.seconds ?? (probe ? '5' : '10'));
// 0: none, a cold start (why the default warms up: results/harness-gap.md).
const warmup = args.quick ? 1 : args.warmup === '0' ? 0 : positive('warmup', args.warmup);
const rates = args.rates.split(',').map((rate) => positive('rates', rate));
// Bad bodies (each ≤ 3× a create): each shape, and a create, for this long at this rate, on
// server builds.
const badBodies = {
  rate: positive('bad-bodies-rate', args['bad-bodies-rate']),
  seconds: Math.min(seconds, 5),
};
mkdirSync(join(BENCH_DIR, 'results'), { recursive: true });
const out = outPath(
  args.out ?? (args.quick ? 'quick' : args.ablation ? 'ablation' : probe ? 'probe' : 'latest'),
  { benchDir: BENCH_DIR, cwd: process.cwd(), initCwd: process.env.INIT_CWD },
);
// Before anything runs: a report that cannot be written is said now, not after the run.
try {
  checkWritable(out);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

const extras = args.server.map((entry) => {
  const [name, path] = entry.split(/=(.*)/s);
  if (!name || !path) throw new Error(`--server wants NAME=PATH/TO/dist/main.js, not ${entry}`);
  return serverCase(name, path);
});
let cases: Case[] = [...(args.ablation ? ablationCases() : standardCases()), ...extras];
// The probe set the server beside its minimal Koa only.
const wantedCases = args.cases ?? (probe ? 'real,koa-minimal' : undefined);
if (wantedCases !== undefined) {
  const wanted = wantedCases.split(',');
  cases = cases.filter((c) => wanted.includes(c.name));
}
const names = new Set(cases.map((c) => c.name));
const pairs: Pair[] = [
  { label: 'real / koa (target ≤ 1.15× CPU, ≥ 0.9× req/s)', num: 'real', den: 'koa' },
  {
    label: 'price of features: real / koa-minimal (target ≤ 1.5× CPU)',
    num: 'real',
    den: 'koa-minimal',
  },
  ...extras.flatMap((c) => [
    { label: `${c.name} / koa`, num: c.name, den: 'koa' },
    { label: `real / ${c.name}`, num: 'real', den: c.name },
  ]),
  { label: 'koa / bare', num: 'koa', den: 'bare' },
  { label: 'fastify / bare', num: 'fastify', den: 'bare' },
].filter((pair) => names.has(pair.num) && names.has(pair.den));

const loadBefore = loadavg();
const started = new Date();
const runs: Run[] = schedule === 'fresh' ? await freshRuns() : await interleavedRuns();
if (schedule !== 'fresh') runs.forEach(logRun);

// The unauthenticated asset GETs, on `real` (a fresh process per repetition).
const real = cases.find((c) => c.name === 'real');
const assetGets =
  args.assets === undefined
    ? probe
      ? 0
      : args.quick
        ? 50
        : 200
    : args.assets === '0'
      ? 0
      : positive('assets', args.assets);
const assetRuns: AssetGetRun[] = [];
if (real !== undefined && !args.ablation && assetGets > 0) {
  for (let rep = 1; rep <= reps; rep++) {
    const run = await measureAssetGets(real, rep, assetGets);
    assetRuns.push(run);
    const cpu = run.rows.map((row) => `${row.encoding} ${row.cpuMicros.toFixed(0)} µs`).join(', ');
    console.error(`rep ${rep} asset GETs: ${cpu}; ${run.failures.join('; ') || 'ok'}`);
  }
}
const createMicros = median(
  runs
    .filter((run) => run.name === 'real' && run.failures.length === 0)
    .flatMap((run) => run.windows[0]?.cpuMicros ?? []),
);

const report = renderReport(runs, {
  title: `Bench: POST /plants${args.quick ? ' (quick: checks the harness, not a result)' : ''}`,
  about: [
    `${started.toISOString()} · Node ${process.versions.node} · ${cpus().length} × ${cpus()[0]?.model ?? '?'} · load average ${fmtLoad(loadBefore)} before, ${fmtLoad(loadavg())} after`,
    schedule === 'fresh'
      ? `${reps} repetition(s), rotating order, each case a fresh process on a fresh SQLite file; warm-up ${warmup} s; windows of ${seconds} s at ${rates.join(', ')} req/s (20 connections), then saturation (50 connections); then, on the server's builds, a create and each bad body for ${badBodies.seconds} s at ${badBodies.rate} req/s (10 connections). CPU: the server process, all threads (/proc/<pid>/stat).`
      : `${schedule === 'together' ? 'Together: every case loaded at the same time in each window (the machine shared, its noise common to the pair)' : 'Interleaved'}: every case started once on a fresh SQLite file and warmed up ${warmup} s at 2000 req/s; then for each rate of ${rates.join(', ')} req/s in turn, ${reps} repetition(s) of one ${seconds}-s window per case (20 connections${schedule === 'together' ? ' each' : ', rotating order'}), paired within a repetition; no saturation or bad bodies. CPU: the server process, all threads (/proc/<pid>/stat).`,
    `Bodies: ${bodyName === 'probe' ? '`{"id": N, "name": "Fern N", "tag": "herb"}`, N counting up from Date.now() × 1000 at each start (ascending ids)' : '`{"id":benchId(n),"name":"Bench plant n"}`, a tag on two of three (scattered ids)'}; every id new to its store.`,
    `Command: \`pnpm bench -- ${process.argv
      .slice(2)
      .filter((arg) => arg !== '--')
      .join(' ')}\``,
  ],
  rates,
  cases,
  pairs,
  ...(args.ablation ? { ablationBase: 'real' } : {}),
});
const assetSection = assetRuns.length > 0 ? renderAssetGets(assetRuns, createMicros) : [];
const full = [report.trimEnd(), ...assetSection, ...(await renderMaintenanceDelays()), ''].join(
  '\n',
);
// Printed first: the figures survive a write that fails after all (a disk full).
console.log(full);
writeFileSync(out, full);
console.error(`report: ${out}`);
if ([...runs, ...assetRuns].some((run) => run.failures.length > 0)) process.exit(1);

/** Each repetition runs every case, rotating, each a fresh process on a fresh file. */
async function freshRuns(): Promise<Run[]> {
  const done: Run[] = [];
  for (let rep = 1; rep <= reps; rep++) {
    // Rotating order: each case runs at a different point of each repetition.
    const order = cases.map((_, i) => cases[(i + rep - 1) % cases.length] as Case);
    for (const c of order) done.push(logRun(await measure(c, rep)));
  }
  return done;
}

/**
 * The probe's schedule: every case up at once (one process each for the whole run), then rate
 * by rate, per repetition one window per case in rotating order, so each pair of windows is
 * taken close together in time.
 */
async function interleavedRuns(): Promise<Run[]> {
  const live: Live[] = [];
  const windows = new Map<string, Run['windows'][number][]>();
  for (const c of cases) {
    const started = await start(c);
    if ('failed' in started) {
      for (const up of live) await up.finish();
      return [{ ...started.failed, rep: 1 }];
    }
    live.push(started);
  }
  const failed: string[] = [];
  try {
    if (schedule === 'together') await Promise.all(live.map((server) => server.warmUp()));
    else for (const server of live) await server.warmUp();
    // Rate by rate, as the probe did: its lowest rate came first, on the least warm processes.
    for (const rate of rates) {
      for (let rep = 1; rep <= reps; rep++) {
        const order = live.map((_, i) => live[(i + rep - 1) % live.length] as Live);
        const taken =
          schedule === 'together'
            ? await Promise.all(order.map((server) => server.window(rate)))
            : [];
        for (const [i, server] of order.entries()) {
          const window = taken[i] ?? (await server.window(rate));
          const key = `${server.c.name} ${rep}`;
          windows.set(key, [...(windows.get(key) ?? []), window]);
          console.error(`rep ${rep} ${server.c.name}: ${window.cpuMicros.toFixed(1)} µs @ ${rate}`);
        }
      }
    }
  } catch (error) {
    failed.push(`load failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const done: Run[] = [];
  for (const server of live) {
    const failures = await server.finish(failed);
    for (let rep = 1; rep <= reps; rep++) {
      const mine = windows.get(`${server.c.name} ${rep}`) ?? [];
      mine.sort((a, b) => a.offered - b.offered);
      const saturation = { rps: Number.NaN, p99Ms: Number.NaN };
      done.push({ rep, name: server.c.name, windows: mine, saturation, failures });
    }
  }
  return done;
}

interface Live {
  readonly c: Case;
  readonly port: number;
  readonly token: string;
  readonly pid: number;
  readonly counter: { next: number };
  readonly load: (connections: number, seconds: number, rate?: number) => Promise<LoadResult>;
  readonly warmUp: () => Promise<void>;
  /** One fixed-rate window: the server's CPU µs per answered request. */
  readonly window: (rate: number) => Promise<Run['windows'][number]>;
  /** SIGTERM, then the checks: the failures (empty when it passed); the folder goes if none. */
  readonly finish: (earlier?: readonly string[]) => Promise<string[]>;
}

/** Starts `c` on a fresh SQLite file: a handle to load it, or why it did not start. */
async function start(c: Case): Promise<Live | { failed: Omit<Run, 'rep'> }> {
  const folder = mkdtempSync(join(tmpdir(), `plant-store-bench-${c.name}-`));
  const database = join(folder, 'plants.db');
  const port = await freePort();
  let server: ChildServer;
  let token: string;
  try {
    const prepared = prepareCase(c, database, port);
    token = prepared.token;
    server = await startServer(c.args, prepared.env, port, join(folder, 'server.log'), BENCH_DIR);
  } catch (error) {
    const saturation = { rps: Number.NaN, p99Ms: Number.NaN };
    return {
      failed: { name: c.name, windows: [], saturation, failures: [`${error}; kept ${folder}`] },
    };
  }
  const counter = { next: 0 };
  // The probe's ids: counting up from Date.now() × 1000 at the start (unique, ascending).
  const body: BodyShape = bodyName === 'probe' ? { probe: Date.now() * 1000 } : 'bench';
  const loads: LoadResult[] = [];
  const load = async (connections: number, windowSeconds: number, rate?: number) => {
    const url = `http://127.0.0.1:${port}`;
    const options = { url, token, connections, seconds: windowSeconds, counter, body };
    const result = await runLoad(rate === undefined ? options : { ...options, rate });
    loads.push(result);
    return result;
  };
  const window = async (rate: number) => {
    const before = cpuMicros(server.pid);
    const result = await load(20, seconds, rate);
    const used = cpuMicros(server.pid) - before;
    return {
      offered: rate,
      achieved: result.answered / result.seconds,
      cpuMicros: used / result.answered,
    };
  };
  const finish = async (earlier: readonly string[] = []) => {
    const failures = [...earlier];
    const exit = await server.stop();
    const sum = (key: 'ok' | 'non2xx' | 'errors') => loads.reduce((total, r) => total + r[key], 0);
    const rows = storedPlants(database).length;
    if (sum('non2xx') > 0) failures.push(`${sum('non2xx')} non-2xx answers`);
    if (sum('errors') > 0) failures.push(`${sum('errors')} connection errors or timeouts`);
    if (rows < sum('ok') || rows > counter.next) {
      failures.push(`${rows} rows stored, expected ${sum('ok')}..${counter.next}`);
    }
    if (exit !== 0) failures.push(`exit ${exit} after SIGTERM`);
    if (failures.length === 0) rmSync(folder, { recursive: true, force: true });
    else failures.push(`kept ${folder}`);
    return failures;
  };
  const warmUp = async () => {
    if (warmup > 0) await load(20, warmup, 2000);
  };
  return { c, port, token, pid: server.pid, counter, load, warmUp, window, finish };
}

/** One run of `c`: start it fresh, warm up, the fixed-rate windows, saturation, stop, check. */
async function measure(c: Case, rep: number): Promise<Run> {
  const started = await start(c);
  if ('failed' in started) return { ...started.failed, rep };
  const { load, token, port, pid, counter } = started;
  const windows: Run['windows'][number][] = [];
  let bad: BadBodyRow[] | undefined;
  let saturation = { rps: Number.NaN, p99Ms: Number.NaN };
  const failed: string[] = [];
  try {
    await started.warmUp();
    for (const rate of rates) windows.push(await started.window(rate));
    const result = await load(50, seconds);
    saturation = { rps: result.answered / result.seconds, p99Ms: result.p99Ms };
    if (c.cli !== undefined && !probe) {
      bad = await measureBadBodies({
        url: `http://127.0.0.1:${port}`,
        token,
        pid,
        counter,
        ...badBodies,
      });
    }
  } catch (error) {
    failed.push(`load failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const row of bad?.filter((row) => row.unexpected > 0) ?? []) {
    failed.push(`${row.unexpected} unexpected answers to ${row.name}`);
  }
  const failures = await started.finish(failed);
  return { rep, name: c.name, windows, saturation, failures, ...(bad ? { badBodies: bad } : {}) };
}

function logRun(run: Run): Run {
  const cpu = run.windows.map((w) => `${w.cpuMicros.toFixed(1)} µs @ ${w.offered}`).join(', ');
  const check = run.failures.length === 0 ? 'ok' : `FAILED: ${run.failures.join('; ')}`;
  console.error(
    `rep ${run.rep} ${run.name}: ${cpu}; ${run.saturation.rps.toFixed(0)} req/s saturated; ${check}`,
  );
  return run;
}

function oneOf<T extends string>(name: string, text: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(text)) {
    throw new Error(`--${name} wants one of ${allowed.join(', ')}, not ${text}`);
  }
  return text as T;
}

function positive(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} wants whole numbers ≥ 1, not ${text}`);
  return value;
}

function fmtLoad(load: number[]): string {
  return load.map((value) => value.toFixed(2)).join(' ');
}
