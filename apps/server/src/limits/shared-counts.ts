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

interface Waiting {
  readonly key: string;
  readonly limit: number;
  readonly durationMs: number;
  readonly resolve: (count: Count) => void;
}

/** What a process knows of a key: its lease of points, its rate, its latest count. */
interface KeyState {
  /** Points taken from the store and not yet given to a request, valid until `leaseUntil`. */
  leased: number;
  leaseUntil: number;
  /** The count with the leased points given so far (not the rest), and its window's end. */
  used: number;
  endsAt: number;
  /** Refused without the store until then (the window is spent). */
  spentUntil: number;
  /** Decisions since `since`, and the rate (per second) of the last LEASE_MS. */
  seen: number;
  since: number;
  rate: number;
}

/** How often windows that ended an hour ago are deleted. */
const SWEEP_EVERY_MS = 5 * 60_000;
/**
 * How long a lease serves: points a busy key takes ahead (its rate over this time), given to
 * its next requests from memory. Unused, they expire with it (counted, not given back).
 */
const LEASE_MS = 100;

/**
 * Decisions on a CountStore, grouped like the plants' commits: the points taken in one
 * event-loop turn go to the store in one batch (one transaction or statement, whatever the
 * number of requests), one batch at a time, each request getting the count its own point made,
 * so processes sharing the store share one limit and never pass it. A busy key takes a lease
 * with its batch: the points its rate needs for LEASE_MS more, never more than a quarter of
 * what its window has left, so its next requests are decided in memory (at 1,000 requests a
 * second of one credential: ten writes a second, not a thousand); a quiet key, or one near its
 * limit, takes none and stays exact. A key known to be spent is refused from memory until its
 * window ends. While the store fails (a full disk, a busy file, PostgreSQL down or slow), the
 * process counts in its own memory: a limit less exact for that time, never a failed request.
 */
export class SharedCounts {
  readonly #store: CountStore;
  readonly #fallback = memoryCounts();
  readonly #keys = new LRUCache<string, KeyState>({ max: MAX_KEYS });
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
    const state = this.#state(key, now);
    if (state.spentUntil > now) {
      return { allowed: false, remaining: 0, msBeforeNext: state.spentUntil - now };
    }
    let count: Count;
    if (state.leased > 0 && state.leaseUntil > now && state.endsAt > now) {
      state.leased -= 1;
      state.used += 1;
      count = { points: state.used, endsAt: state.endsAt };
    } else {
      count = await new Promise<Count>((resolve) => {
        this.#waiting.push({ key, limit, durationMs, resolve });
        this.#schedule();
      });
    }
    if (count.points >= limit) state.spentUntil = count.endsAt;
    return {
      allowed: count.points <= limit,
      remaining: Math.max(0, limit - count.points),
      msBeforeNext: Math.max(0, count.endsAt - Date.now()),
    };
  }

  close(): void {
    clearInterval(this.#sweep);
  }

  /** The key's state, its rate counted with this decision. */
  #state(key: string, now: number): KeyState {
    let state = this.#keys.get(key);
    if (state === undefined) {
      state = {
        leased: 0,
        leaseUntil: 0,
        used: 0,
        endsAt: 0,
        spentUntil: 0,
        seen: 0,
        since: now,
        rate: 0,
      };
      this.#keys.set(key, state);
    }
    state.seen += 1;
    if (now - state.since >= LEASE_MS) {
      state.rate = (state.seen * 1000) / (now - state.since);
      state.seen = 0;
      state.since = now;
    }
    return state;
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
    const now = Date.now();
    const demand = new Map<string, Take & { limit: number; lease: number }>();
    for (const { key, limit, durationMs } of batch) {
      const take = demand.get(key);
      demand.set(key, { key, durationMs, limit, points: (take?.points ?? 0) + 1, lease: 0 });
    }
    for (const take of demand.values()) {
      const state = this.#keys.get(take.key);
      const left = state && state.endsAt > now ? take.limit - state.used - take.points : 0;
      take.lease = Math.max(
        0,
        Math.min(Math.floor((state?.rate ?? 0) * (LEASE_MS / 1000)), Math.floor(left / 4)),
      );
    }
    const takes = [...demand.values()].map(({ key, points, lease, durationMs }) => ({
      key,
      points: points + lease,
      durationMs,
    }));
    let counts: Count[];
    try {
      counts = await this.#store.add(takes, now);
    } catch (error) {
      this.#onStoreError(error);
      counts = await this.#fallback.add(takes, now);
    }
    this.#inFlight = false;
    this.#schedule();
    // Each waiting request gets the count as it was just after its own point, in arrival
    // order; the points leased after them serve the key's next requests.
    const next = new Map<string, number>();
    [...demand.values()].forEach((take, index) => {
      const count = counts[index] ?? { points: take.limit + 1, endsAt: now };
      const before = count.points - take.points - take.lease;
      next.set(take.key, before);
      const state = this.#keys.get(take.key);
      if (state === undefined) return;
      state.used = before + take.points;
      state.endsAt = count.endsAt;
      state.leased = Math.max(0, Math.min(take.lease, take.limit - state.used));
      state.leaseUntil = now + LEASE_MS;
    });
    for (const waiting of batch) {
      const points = (next.get(waiting.key) ?? 0) + 1;
      next.set(waiting.key, points);
      const state = this.#keys.get(waiting.key);
      waiting.resolve({ points, endsAt: state?.endsAt ?? now });
    }
  }
}
