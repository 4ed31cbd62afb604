import type BetterSqlite3 from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { DatabaseHandle } from '../store/database.ts';

/** One key's count in its fixed window, and when that window ends (ms since the epoch). */
export interface Count {
  readonly points: number;
  readonly endsAt: number;
}

/** `points` more for `key`, in a window of `durationMs` from the first point (a new one once it ended). */
export interface Take {
  readonly key: string;
  readonly points: number;
  readonly durationMs: number;
}

/** Where the counts live: adds every take (distinct keys) at `now` in one go, and gives the counts after. */
export interface CountStore {
  add(takes: readonly Take[], now: number): Count[] | Promise<Count[]>;
  /** Deletes windows that ended before `before`. */
  sweep(before: number): unknown;
}

/** Keys a process remembers at most: in its memory store, and as known to be spent. */
const MAX_KEYS = 100_000;

/** Counts in this process's memory: the unit tests' store, and every store's stand-in while it fails. */
export function memoryCounts(): CountStore {
  const counts = new LRUCache<string, Count>({ max: MAX_KEYS });
  return {
    add: (takes, now) =>
      takes.map(({ key, points, durationMs }) => {
        const old = counts.get(key);
        const count =
          old && old.endsAt > now
            ? { points: old.points + points, endsAt: old.endsAt }
            : { points, endsAt: now + durationMs };
        counts.set(key, count);
        return count;
      }),
    sweep: () => counts.purgeStale(),
  };
}

// One row per key, updated in place: a window that ended starts again.
const UPSERT = (now: string) => `ON CONFLICT (key) DO UPDATE SET
    points = CASE WHEN rate_limits.ends_at <= ${now} THEN excluded.points
      ELSE rate_limits.points + excluded.points END,
    ends_at = CASE WHEN rate_limits.ends_at <= ${now} THEN excluded.ends_at
      ELSE rate_limits.ends_at END
  RETURNING key, points, ends_at`;

/**
 * The counts in the `rate_limits` table of the database the process has open (the one handle),
 * so every process and instance on it shares them. SQLite: one IMMEDIATE transaction per batch,
 * without an fsync (`synchronous=OFF` for it: counts are not data) and waiting at most 100 ms
 * for another process's lock. PostgreSQL: one statement per batch on the pool (an UNLOGGED
 * table), given up after PG_CONNECT_TIMEOUT_MS.
 */
export function databaseCounts(handle: DatabaseHandle): CountStore {
  return handle.kind === 'sqlite'
    ? sqliteCounts(handle.db)
    : postgresCounts(handle.pool, handle.settings.connectTimeoutMs);
}

function sqliteCounts(db: BetterSqlite3.Database): CountStore {
  const upsert = db.prepare<[Take & { now: number }], { points: number; ends_at: number }>(
    `INSERT INTO rate_limits (key, points, ends_at) VALUES (@key, @points, @now + @durationMs)
    ${UPSERT('@now')}`,
  );
  const synchronous = Number(db.pragma('synchronous', { simple: true }));
  const busyTimeout = Number(db.pragma('busy_timeout', { simple: true }));
  const [relax, restore] = [`synchronous = 0`, `synchronous = ${synchronous}`].map((pragma) =>
    db.prepare(`PRAGMA ${pragma}`),
  );
  const [shortWait, longWait] = [100, busyTimeout].map((ms) =>
    db.prepare(`PRAGMA busy_timeout = ${ms}`),
  );
  const add = db.transaction((takes: readonly Take[], now: number) =>
    takes.map((take) => {
      const row = upsert.get({ ...take, now });
      return { points: Number(row?.points), endsAt: Number(row?.ends_at) };
    }),
  );
  const sweep = db.prepare('DELETE FROM rate_limits WHERE ends_at < ?');
  return {
    add: (takes, now) => {
      relax?.run();
      shortWait?.get();
      try {
        return add.immediate(takes, now);
      } finally {
        restore?.run();
        longWait?.get();
      }
    },
    sweep: (before) => sweep.run(before),
  };
}

function postgresCounts(
  pool: Extract<DatabaseHandle, { kind: 'postgres' }>['pool'],
  timeoutMs: number,
): CountStore {
  const text = `INSERT INTO rate_limits (key, points, ends_at)
    SELECT key, points, $4::bigint + duration
    FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS t(key, points, duration)
    ${UPSERT('$4::bigint')}`;
  return {
    add: async (takes, now) => {
      // Rows in key order, so concurrent batches of two instances wait instead of deadlocking.
      const sorted = [...takes].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const values = [
        sorted.map((take) => take.key),
        sorted.map((take) => take.points),
        sorted.map((take) => take.durationMs),
        now,
      ];
      const query = { text, values, query_timeout: timeoutMs };
      const { rows } = await pool.query<{ key: string; points: bigint; ends_at: bigint }>(query);
      const byKey = new Map(rows.map((row) => [row.key, row]));
      return takes.map(({ key }) => {
        const row = byKey.get(key);
        return { points: Number(row?.points), endsAt: Number(row?.ends_at) };
      });
    },
    sweep: (before) => pool.query('DELETE FROM rate_limits WHERE ends_at < $1', [before]),
  };
}

/** A decision: whether the point was granted, what is left of the limit, when the window ends. */
export interface Decision {
  readonly allowed: boolean;
  readonly remaining: number;
  readonly msBeforeNext: number;
}

interface Waiting extends Take {
  readonly resolve: (count: Count) => void;
}

/** How often windows that ended an hour ago are deleted. */
const SWEEP_EVERY_MS = 5 * 60_000;

/**
 * Decisions on a CountStore, grouped like the plants' commits: the points taken in one
 * event-loop turn go to the store in one batch (one transaction or statement, whatever the
 * number of requests), one batch at a time, each request getting the count its own point made,
 * so processes sharing the store share one exact limit. A key known to be spent is refused from
 * memory until its window ends, without the store. While the store fails (a full disk, a busy
 * file, PostgreSQL down or slow), the process counts in its own memory: a limit less exact for
 * that time, never a failed request.
 */
export class SharedCounts {
  readonly #store: CountStore;
  readonly #fallback = memoryCounts();
  readonly #spent = new LRUCache<string, number>({ max: MAX_KEYS });
  readonly #onStoreError: (error: unknown) => void;
  readonly #sweep: NodeJS.Timeout;
  #waiting: Waiting[] = [];
  #scheduled: NodeJS.Immediate | undefined;
  #inFlight = false;

  constructor(store: CountStore, onStoreError: (error: unknown) => void = () => undefined) {
    this.#store = store;
    this.#onStoreError = onStoreError;
    this.#sweep = setInterval(() => {
      Promise.resolve()
        .then(() => this.#store.sweep(Date.now() - 60 * 60_000))
        .catch(() => undefined);
    }, SWEEP_EVERY_MS).unref();
  }

  /** Takes one point of `key`, whose limit is `limit` per window of `durationMs`. */
  async consume(key: string, limit: number, durationMs: number): Promise<Decision> {
    const now = Date.now();
    const spentUntil = this.#spent.get(key);
    if (spentUntil !== undefined && spentUntil > now) {
      return { allowed: false, remaining: 0, msBeforeNext: spentUntil - now };
    }
    const count = await new Promise<Count>((resolve) => {
      this.#waiting.push({ key, points: 1, durationMs, resolve });
      this.#schedule();
    });
    if (count.points >= limit) this.#spent.set(key, count.endsAt);
    return {
      allowed: count.points <= limit,
      remaining: Math.max(0, limit - count.points),
      msBeforeNext: Math.max(0, count.endsAt - Date.now()),
    };
  }

  close(): void {
    clearInterval(this.#sweep);
  }

  #schedule(): void {
    if (this.#scheduled !== undefined || this.#inFlight || this.#waiting.length === 0) return;
    this.#scheduled = setImmediate(() => {
      this.#scheduled = undefined;
      void this.#run(this.#waiting.splice(0));
    });
  }

  async #run(batch: readonly Waiting[]): Promise<void> {
    this.#inFlight = true;
    const totals = new Map<string, Take>();
    for (const { key, points, durationMs } of batch) {
      const total = totals.get(key);
      totals.set(key, { key, points: (total?.points ?? 0) + points, durationMs });
    }
    const takes = [...totals.values()];
    const now = Date.now();
    let counts: Count[];
    try {
      counts = await this.#store.add(takes, now);
    } catch (error) {
      this.#onStoreError(error);
      counts = await this.#fallback.add(takes, now);
    }
    this.#inFlight = false;
    this.#schedule();
    // Each waiting request gets the count as it was just after its own point, in arrival order.
    const before = new Map<string, number>();
    takes.forEach((take, index) => {
      const count = counts[index];
      if (count) before.set(take.key, count.points - take.points);
    });
    const endsAt = new Map(takes.map((take, index) => [take.key, counts[index]?.endsAt ?? now]));
    for (const waiting of batch) {
      const points = (before.get(waiting.key) ?? 0) + waiting.points;
      before.set(waiting.key, points);
      waiting.resolve({ points, endsAt: endsAt.get(waiting.key) ?? now });
    }
  }
}
