import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import {
  databaseCounts,
  SharedCounts,
  SWEEP_EVERY_MS,
} from '../../apps/server/src/limits/shared-counts.ts';
import { openDatabase } from '../../apps/server/src/store/sqlite/open-database.ts';
import { createSqliteStore } from '../../apps/server/src/store/sqlite/sqlite-store.ts';

// The target: no maintenance task holds the event loop for more than 20 ms. In this process,
// on the server's own modules and a real SQLite file: the event loop's longest delay
// (perf_hooks.monitorEventLoopDelay, 1 ms resolution) while the rate limits' sweep deletes
// 1,000,000 ended rows beside 100,000 live ones, once as one DELETE (for comparison) and once
// as the server's sliced sweep; and while the plant store group-commits 50,000 creates
// (its WAL auto-checkpoints included). `pnpm bench` adds the section; alone:
// `node --import tsx src/sweep-delay.ts`.

const ENDED = 1_000_000;
const LIVE = 100_000;

/** The event loop's longest delay (ms) while `work` runs, and how long it ran (ms). */
async function longestDelay(
  work: () => unknown,
): Promise<{ maxMs: number; p99Ms: number; ms: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const began = performance.now();
  await work();
  const ms = performance.now() - began;
  await new Promise((resolve) => setTimeout(resolve, 20));
  histogram.disable();
  return { maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6, ms };
}

/** The CPU ms of `work` (this process: one thread does it). */
function cpuMs<T>(work: () => T): [T, number] {
  const before = process.cpuUsage();
  const value = work();
  const used = process.cpuUsage(before);
  return [value, (used.user + used.system) / 1000];
}

/** A new database file with ENDED rows ended before the sweep's cut and LIVE ones running. */
function filledDatabase(folder: string, name: string) {
  const filename = join(folder, name);
  const db = openDatabase(filename);
  const insert = db.prepare('INSERT INTO rate_limits (key, points, ends_at) VALUES (?, 1, ?)');
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < ENDED + LIVE; i++) {
      const ended = i % 11 !== 0; // 10 in 11: 1,000,000 of 1,100,000
      insert.run(
        `f:${(i * 2654435761) % 2 ** 32}.${i}`,
        ended ? now - 2 * SWEEP_EVERY_MS : now + 3_600_000,
      );
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { filename, db };
}

export interface DelayRow {
  readonly what: string;
  readonly maxMs: number;
  readonly p99Ms: number;
  /** The CPU time of the longest synchronous step (the whole DELETE, or one slice). */
  readonly stepCpuMs: number;
  readonly ms: number;
  readonly note: string;
}

export async function measureMaintenanceDelays(): Promise<DelayRow[]> {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-bench-sweep-'));
  const rows: DelayRow[] = [];
  try {
    const before = filledDatabase(folder, 'before.db');
    const drop = before.db.prepare('DELETE FROM rate_limits WHERE ends_at < ?');
    let stepCpuMs = 0;
    const one = await longestDelay(() => {
      stepCpuMs = cpuMs(() => drop.run(Date.now() - SWEEP_EVERY_MS))[1];
    });
    rows.push({
      what: 'one DELETE, for comparison',
      ...one,
      stepCpuMs,
      note: 'every ended row in one statement',
    });
    before.db.close();

    const after = filledDatabase(folder, 'after.db');
    const handle = { kind: 'sqlite', ...after, close: async () => undefined } as const;
    const store = databaseCounts(handle);
    let longestStep = 0;
    const counts = new SharedCounts({
      add: store.add,
      sweepSlice: (key, cut) => {
        const [next, ms] = cpuMs(() => store.sweepSlice(key, cut));
        longestStep = Math.max(longestStep, ms);
        return next;
      },
    });
    let slices = 0;
    const sliced = await longestDelay(async () => (slices = await counts.sweep()));
    const left = after.db.prepare('SELECT count(*) FROM rate_limits').pluck().get();
    rows.push({
      what: "the server's sweep: slices",
      ...sliced,
      stepCpuMs: longestStep,
      note: `${slices} steps (1,000 keys or 200 pages each); ${left} live rows kept`,
    });
    counts.close();
    after.db.close();

    const plants = createSqliteStore({ filename: join(folder, 'plants.db') });
    let id = 0n;
    const creates = await longestDelay(async () => {
      for (let round = 0; round < 500; round++) {
        await Promise.all(
          Array.from({ length: 100 }, () => plants.create({ id: id++, name: `Plant ${id}` })),
        );
      }
    });
    rows.push({
      what: 'group commits (auto-checkpoints)',
      ...creates,
      stepCpuMs: Number.NaN,
      note: '50,000 creates, 100 a turn: each commit fsyncs on the event loop, a checkpoint too',
    });
    await plants.close();
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return rows;
}

/** The section of the bench report. */
export async function renderMaintenanceDelays(): Promise<string[]> {
  const rows = await measureMaintenanceDelays();
  return [
    '',
    "## Maintenance: the event loop's longest delay (target: ≤ 20 ms)",
    '',
    `In the bench process on a real SQLite file (synchronous=FULL): ${ENDED.toLocaleString('en')} ended rate_limits rows beside ${LIVE.toLocaleString('en')} live ones swept; monitorEventLoopDelay at 1 ms resolution. Shared machine: wall times are noisy.`,
    '',
    '| task | longest delay ms | p99 delay ms | longest step, CPU ms | took ms | |',
    '|---|---:|---:|---:|---:|---|',
    ...rows
      .map((row) =>
        [row.what, row.maxMs, row.p99Ms, row.stepCpuMs, row.ms, row.note]
          .map((cell) => (typeof cell === 'number' ? cell.toFixed(1) : cell))
          .join(' | '),
      )
      .map((line) => `| ${line} |`),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log((await renderMaintenanceDelays()).join('\n'));
}
