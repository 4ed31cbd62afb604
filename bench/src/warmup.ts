import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, prepareCase, standardCases } from './cases.ts';
import { runLoad } from './load.ts';
import { cpuMicros, freePort, startServer } from './proc.ts';

// `pnpm --filter @plant-store/bench bench:warmup`: how long the JIT keeps compiling. `real` and
// `koa-minimal` run at the same time (the same noise on both), each with V8's --trace-opt
// --trace-deopt into its log, loaded with the probe's bodies at one rate, window after window:
// per window the CPU µs per create, the functions TurboFan compiled, the ms it took
// ("took a, b, c ms", summed) and the deopts. → results/warmup.md
const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    rate: { type: 'string', default: '1000' },
    windows: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '3' },
  },
});
const [rate, windows, seconds, warmup] = [args.rate, args.windows, args.seconds, args.warmup].map(
  Number,
) as [number, number, number, number];

/** Compiles, their ms and deopts so far in a V8 trace. */
function jitSoFar(log: string): { compiled: number; ms: number; deopts: number } {
  const text = readFileSync(log, 'utf8');
  const took = [
    ...text.matchAll(/\[completed compiling .* took ([\d.]+), ([\d.]+), ([\d.]+) ms\]/g),
  ];
  const ms = took.reduce((sum, m) => sum + Number(m[1]) + Number(m[2]) + Number(m[3]), 0);
  return { compiled: took.length, ms, deopts: text.match(/\[bailout \(kind: deopt/g)?.length ?? 0 };
}

const servers = await Promise.all(
  ['real', 'koa-minimal'].map(async (name) => {
    const c = standardCases().find((each) => each.name === name);
    if (c === undefined) throw new Error(`no case ${name}`);
    const folder = mkdtempSync(join(tmpdir(), `plant-store-warmup-${name}-`));
    const port = await freePort();
    const { env, token } = prepareCase(c, join(folder, 'plants.db'), port);
    const log = join(folder, 'server.log');
    const args = ['--trace-opt', '--trace-deopt', ...c.args];
    const server = await startServer(args, env, port, log, BENCH_DIR);
    const counter = { next: 0 };
    const body = { probe: Date.now() * 1000 };
    const url = `http://127.0.0.1:${port}`;
    const load = (s: number, r: number) =>
      runLoad({ url, token, connections: 20, seconds: s, rate: r, counter, body });
    return { name, folder, log, server, load, rows: [] as string[] };
  }),
);
const load = loadavg();
await Promise.all(servers.map((s) => s.load(warmup, 2000)));
for (let w = 0; w < windows; w++) {
  await Promise.all(
    servers.map(async (s) => {
      const [jit, cpu] = [jitSoFar(s.log), cpuMicros(s.server.pid)];
      const result = await s.load(seconds, rate);
      const [jitAfter, used] = [jitSoFar(s.log), cpuMicros(s.server.pid) - cpu];
      const micros = (used / result.answered).toFixed(0);
      const compiled = `${jitAfter.compiled - jit.compiled} (${(jitAfter.ms - jit.ms).toFixed(0)} ms)`;
      s.rows.push(`${micros} µs · ${compiled} · ${jitAfter.deopts - jit.deopts}`);
    }),
  );
}
for (const s of servers) {
  if ((await s.server.stop()) === 0) rmSync(s.folder, { recursive: true, force: true });
}
const lines = [
  '# Warm-up: CPU per create and the JIT, window after window',
  '',
  `${new Date().toISOString()} · Node ${process.versions.node} · ${cpus().length} × ${cpus()[0]?.model ?? '?'} · load average ${load.map((x) => x.toFixed(2)).join(' ')} before`,
  `Both at once, each a fresh process with --trace-opt --trace-deopt (their output costs a little CPU too); warm-up ${warmup} s at 2000 req/s; then ${windows} windows of ${seconds} s at ${rate} req/s, 20 connections, the probe's bodies. Cell: CPU µs per create · functions TurboFan compiled (ms its jobs took) · deopts.`,
  '',
  `| window | requests before it | ${servers.map((s) => s.name).join(' | ')} |`,
  `|---:|---:|${servers.map(() => '---|').join('')}`,
  ...Array.from(
    { length: windows },
    (_, w) =>
      `| ${w + 1} | ${warmup * 2000 + w * seconds * rate} | ${servers.map((s) => s.rows[w]).join(' | ')} |`,
  ),
  '',
];
writeFileSync(join(BENCH_DIR, 'results', 'warmup.md'), lines.join('\n'));
console.log(lines.join('\n'));
