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
import { type LoadResult, runLoad } from './load.ts';
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
    quick: { type: 'boolean', default: false },
    server: { type: 'string', multiple: true, default: [] },
    ablation: { type: 'boolean', default: false },
    rates: { type: 'string', default: '1000,2000,4000' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    cases: { type: 'string' },
    out: { type: 'string' },
    'bad-bodies-rate': { type: 'string', default: '500' },
    // GETs per file and encoding in the asset section (0: no section); 200, or 50 with --quick.
    assets: { type: 'string' },
  },
});
const reps = args.quick ? 1 : positive('reps', args.reps);
const seconds = args.quick ? 2 : positive('seconds', args.seconds);
const warmup = args.quick ? 1 : positive('warmup', args.warmup);
const rates = args.rates.split(',').map((rate) => positive('rates', rate));
// Bad bodies (issue 28): each shape, and a create, for this long at this rate, on server builds.
const badBodies = {
  rate: positive('bad-bodies-rate', args['bad-bodies-rate']),
  seconds: Math.min(seconds, 5),
};
const out = args.out ?? (args.quick ? 'quick' : args.ablation ? 'ablation' : 'latest');

const extras = args.server.map((entry) => {
  const [name, path] = entry.split(/=(.*)/s);
  if (!name || !path) throw new Error(`--server wants NAME=PATH/TO/dist/main.js, not ${entry}`);
  return serverCase(name, path);
});
let cases: Case[] = [...(args.ablation ? ablationCases() : standardCases()), ...extras];
if (args.cases !== undefined) {
  const wanted = args.cases.split(',');
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
const runs: Run[] = [];
for (let rep = 1; rep <= reps; rep++) {
  // Rotating order: each case runs at a different point of each repetition.
  const order = cases.map((_, i) => cases[(i + rep - 1) % cases.length] as Case);
  for (const c of order) {
    const run = await measure(c, rep);
    runs.push(run);
    const cpu = run.windows.map((w) => `${w.cpuMicros.toFixed(1)} µs @ ${w.offered}`).join(', ');
    const check = run.failures.length === 0 ? 'ok' : `FAILED: ${run.failures.join('; ')}`;
    console.error(
      `rep ${rep} ${c.name}: ${cpu}; ${run.saturation.rps.toFixed(0)} req/s saturated; ${check}`,
    );
  }
}

// The unauthenticated asset GETs, on `real` (a fresh process per repetition).
const real = cases.find((c) => c.name === 'real');
const assetGets =
  args.assets === undefined
    ? args.quick
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
    `${reps} repetition(s), rotating order, each case a fresh process on a fresh SQLite file; warm-up ${warmup} s; windows of ${seconds} s at ${rates.join(', ')} req/s (20 connections), then saturation (50 connections); then, on the server's builds, a create and each bad body for ${badBodies.seconds} s at ${badBodies.rate} req/s (10 connections). CPU: the server process, all threads (/proc/<pid>/stat).`,
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
mkdirSync(join(BENCH_DIR, 'results'), { recursive: true });
writeFileSync(join(BENCH_DIR, 'results', `${out}.md`), full);
console.log(full);
if ([...runs, ...assetRuns].some((run) => run.failures.length > 0)) process.exit(1);

/** One run of `c`: start it fresh, warm up, the fixed-rate windows, saturation, stop, check. */
async function measure(c: Case, rep: number): Promise<Run> {
  const folder = mkdtempSync(join(tmpdir(), `plant-store-bench-${c.name}-`));
  const database = join(folder, 'plants.db');
  const port = await freePort();
  const windows: Run['windows'][number][] = [];
  let bad: BadBodyRow[] | undefined;
  let saturation = { rps: Number.NaN, p99Ms: Number.NaN };
  let server: ChildServer;
  let token: string;
  try {
    const prepared = prepareCase(c, database, port);
    token = prepared.token;
    server = await startServer(c.args, prepared.env, port, join(folder, 'server.log'), BENCH_DIR);
  } catch (error) {
    return { rep, name: c.name, windows, saturation, failures: [`${error}; kept ${folder}`] };
  }
  const counter = { next: 0 };
  const loads: LoadResult[] = [];
  const load = async (connections: number, windowSeconds: number, rate?: number) => {
    const url = `http://127.0.0.1:${port}`;
    const options = { url, token, connections, seconds: windowSeconds, counter };
    const result = await runLoad(rate === undefined ? options : { ...options, rate });
    loads.push(result);
    return result;
  };
  const failures: string[] = [];
  try {
    await load(20, warmup, 2000);
    for (const rate of rates) {
      const before = cpuMicros(server.pid);
      const result = await load(20, seconds, rate);
      const used = cpuMicros(server.pid) - before;
      windows.push({
        offered: rate,
        achieved: result.answered / result.seconds,
        cpuMicros: used / result.answered,
      });
    }
    const result = await load(50, seconds);
    saturation = { rps: result.answered / result.seconds, p99Ms: result.p99Ms };
    if (c.cli !== undefined) {
      bad = await measureBadBodies({
        url: `http://127.0.0.1:${port}`,
        token,
        pid: server.pid,
        counter,
        ...badBodies,
      });
      for (const row of bad.filter((row) => row.unexpected > 0)) {
        failures.push(`${row.unexpected} unexpected answers to ${row.name}`);
      }
    }
  } catch (error) {
    failures.push(`load failed: ${error instanceof Error ? error.message : String(error)}`);
  }
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
  return { rep, name: c.name, windows, saturation, failures, ...(bad ? { badBodies: bad } : {}) };
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
