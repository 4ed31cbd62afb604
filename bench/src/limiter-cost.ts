import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BurstyRateLimiter, RateLimiterMemory } from 'rate-limiter-flexible';
import { RateLimits } from '../../apps/server/src/limits/rate-limits.ts';
import { databaseCounts } from '../../apps/server/src/limits/shared-counts.ts';
import { openDatabase } from '../../apps/server/src/store/sqlite/open-database.ts';
import { BENCH_DIR } from './cases.ts';
import { PeerWork } from './peers/work.ts';

// The per-token limit's own cost: CPU µs per decision of the server's limits (counts in the
// database file's rate_limits table, one transaction per event-loop turn), one decision a turn
// (the worst case) and 20 a turn; beside the peers' limiter (RateLimiterSQLite in a side file)
// and the same limiter in process memory. In one process, measured by process.cpuUsage(), so
// it holds on a busy machine where the HTTP cases' figures do not.
// `pnpm --filter @plant-store/bench bench:limiter [-- --decisions N]`.

const { values } = parseArgs({
  options: {
    decisions: { type: 'string', default: '20000' },
    reps: { type: 'string', default: '5' },
  },
});
const DECISIONS = Number(values.decisions);
const REPS = Number(values.reps);

type Limit = (key: string) => unknown;

/** CPU µs per decision over DECISIONS decisions of one key, `together` at a time, after a warm-up. */
async function cpuPerDecision(limit: Limit, together = 1): Promise<number> {
  const round = () => Promise.all(Array.from({ length: together }, () => limit('env#1')));
  for (let i = 0; i < 2_000 / together; i++) await round();
  const before = process.cpuUsage();
  for (let i = 0; i < DECISIONS / together; i++) await round();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / DECISIONS;
}

const folder = mkdtempSync(join(tmpdir(), 'plant-store-bench-limiter-'));
const work = new PeerWork({
  databaseFile: join(folder, 'plants.db'),
  tokens: [],
  bodyLimitBytes: 65_536,
  ratePerSecond: 1e9,
  burst: 1e9,
  logLevel: 'silent',
  log: { write: () => undefined },
});
const memory = new BurstyRateLimiter(
  new RateLimiterMemory({ points: 1e9, duration: 1 }),
  new RateLimiterMemory({ keyPrefix: 'burst', points: 1e9, duration: 2 }),
);
const filename = join(folder, 'server.db');
const db = openDatabase(filename);
const server = RateLimits.create(
  { perSecond: 1e9, burst: 2e9, authFailuresPerMinute: 30 },
  databaseCounts({ kind: 'sqlite', filename, db, close: async () => undefined }),
);
const rows: Record<string, number[]> = { memory: [], sqlite: [], server: [], server20: [] };
try {
  for (let rep = 0; rep < REPS; rep++) {
    rows.memory?.push(await cpuPerDecision((key) => memory.consume(key)));
    rows.sqlite?.push(await cpuPerDecision((key) => work.limit(key)));
    rows.server?.push(await cpuPerDecision((key) => server.consumeCredential(key)));
    rows.server20?.push(await cpuPerDecision((key) => server.consumeCredential(key), 20));
  }
} finally {
  server.close();
  db.close();
  work.close();
  rmSync(folder, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const line = (name: string, what: string, xs: number[]) =>
  `| ${name} | ${what} | ${median(xs).toFixed(1)} | ${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)} |`;
const report = [
  `# The per-token limit: CPU µs per decision (${REPS} × ${DECISIONS} decisions, Node ${process.versions.node})`,
  '',
  `Load average at the end: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(', ')}.`,
  '',
  '| limiter | where the counts live | median µs | min–max |',
  '|---|---|---:|---:|',
  line('memory', 'this process (rate-limiter-flexible in memory)', rows.memory ?? []),
  line('sqlite', "the side file `<file>-limits`, shared (the peers' limiter)", rows.sqlite ?? []),
  line('server', 'the database file, one decision a turn (the server)', rows.server ?? []),
  line('server ×20', 'the database file, 20 decisions a turn (the server)', rows.server20 ?? []),
  '',
].join('\n');
console.log(report);
writeFileSync(resolve(BENCH_DIR, 'results', 'limiter.md'), report);
