import { LRUCache } from 'lru-cache';
import type { DatabaseHandle, PostgresHandle } from '../store/database.ts';
import { openSqlite } from '../store/sqlite/driver.ts';

/** A key's count in its fixed window, and when the window ends (ms since the epoch). */
type Count = Readonly<{ points: number; endsAt: number }>;
type Take = Readonly<{ key: string; points: number; durationMs: number }>;

/** Adds every take (distinct keys) at `now` in one go, giving the count after of each key. */
export interface CountStore {
  add(takes: readonly Take[], now: number): Promise<Map<string, Count>>;
  /**
   * Looks at the next SWEEP_SLICE keys after `after`, deleting those whose window ended before
   * `before`; gives the last key looked at, undefined when the sweep is done.
   */
  sweepSlice(after: string, before: number): Promise<string | undefined>;
  close?(): void;
}

const MAX_KEYS = 100_000;
/** Keys a sweep step looks at: a few milliseconds of work between two turns of the event loop. */
export const SWEEP_SLICE = 1000;
/** A sweep runs this often, deleting the rows whose window ended this long before. */
export const SWEEP_EVERY_MS = 60_000;

const UPSERT = (now: string) => `ON CONFLICT (key) DO UPDATE SET
    points = CASE WHEN rate_limits.ends_at <= ${now} THEN excluded.points
      ELSE rate_limits.points + excluded.points END,
    ends_at = CASE WHEN rate_limits.ends_at <= ${now} THEN excluded.ends_at
      ELSE rate_limits.ends_at END
  RETURNING key, points, ends_at`;
type Row = { key: string; points: number | bigint; ends_at: number | bigint };
/** The counts an upsert returned, by key. */
const countsOf = (rows: readonly Row[]) =>
  new Map(
    rows.map((row) => [row.key, { points: Number(row.points), endsAt: Number(row.ends_at) }]),
  );
const SLICE = `SELECT key, ends_at FROM rate_limits WHERE key > ? ORDER BY key LIMIT ${SWEEP_SLICE}`;

/**
 * The `rate_limits` table of the process's database, shared by every process on it. SQLite: a
 * connection of its own, no fsync for a batch (counts are not data); a file made with
 * auto_vacuum=INCREMENTAL gives the swept pages back.
 */
export function databaseCounts(handle: DatabaseHandle): CountStore {
  return handle.kind === 'sqlite' ? sqliteCounts(handle.filename) : postgresCounts(handle);
}

function sqliteCounts(filename: string): CountStore {
  const db = openSqlite(filename, { fileMustExist: true, timeout: 100 });
  // NORMAL, not OFF: in WAL mode neither syncs a commit, but NORMAL syncs a checkpoint this
  // connection runs, which copies the plants' pages too before the WAL is reused. Checkpoints
  // of 100 pages keep each sync short: a sweep's deletes otherwise stall the event loop on
  // syncing a 1,000-page one (bench/results/probe.md).
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 100');
  const upsert = db.prepare<[Take & { now: number }], Row>(
    `INSERT INTO rate_limits (key, points, ends_at) VALUES (@key, @points, @now + @durationMs)
    ${UPSERT('@now')}`,
  );
  const add = db.transaction((takes: readonly Take[], now: number) =>
    // RETURNING gives every upserted row.
    takes.map(({ key, points, durationMs }) => upsert.get({ key, points, durationMs, now }) as Row),
  );
  const last = db.prepare<[string], string | null>(`SELECT max(key) FROM (${SLICE})`).pluck();
  const drop = db.prepare('DELETE FROM rate_limits WHERE key > ? AND key <= ? AND ends_at < ?');
  const incremental = db.pragma('auto_vacuum', { simple: true }) === 2;
  const free = db.prepare('PRAGMA freelist_count').pluck();
  return {
    add: async (takes, now) => countsOf(add.immediate(takes, now)),
    sweepSlice: async (after, before) => {
      db.pragma('busy_timeout = 10');
      try {
        const upTo = last.get(after);
        if (upTo !== null && upTo !== undefined) {
          drop.run(after, upTo, before);
          return upTo;
        }
        if (!incremental || free.get() === 0) return undefined;
        db.exec('PRAGMA incremental_vacuum(200)'); // 200 pages a step
        return after;
      } finally {
        db.pragma('busy_timeout = 100');
      }
    },
    close: () => db.close(),
  };
}

function postgresCounts({ pool }: PostgresHandle): CountStore {
  const text = `INSERT INTO rate_limits (key, points, ends_at)
    SELECT key, points, $4::bigint + duration
    FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS t(key, points, duration)
    ${UPSERT('$4::bigint')}`;
  // Rows a batch is updating are skipped (they are live): a sweep neither waits nor deadlocks.
  const sweep = `WITH slice AS (${SLICE.replace('?', '$1')}),
    ended AS (SELECT key FROM rate_limits WHERE key IN (SELECT key FROM slice WHERE ends_at < $2)
      FOR UPDATE SKIP LOCKED),
    gone AS (DELETE FROM rate_limits WHERE key IN (SELECT key FROM ended))
    SELECT max(key) AS last FROM slice`;
  return {
    add: async (takes, now) => {
      // Rows in key order, so concurrent batches of two instances wait instead of deadlocking.
      const sorted = [...takes].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const column = (name: keyof Take) => sorted.map((take) => take[name]);
      const values = [column('key'), column('points'), column('durationMs'), now];
      const query = { text, values }; // bounded by the pool's query_timeout
      return countsOf((await pool.query<Row>(query)).rows);
    },
    sweepSlice: async (after, before) => {
      const { rows } = await pool.query<{ last: string | null }>(sweep, [after, before]);
      return rows[0]?.last ?? undefined;
    },
  };
}

export type Decision = Readonly<{ allowed: boolean; remaining: number; msBeforeNext: number }>;

/**
 * What a process knows of a key: the count `used` in its window (ending `endsAt`) without the
 * `leased` points it took ahead (until `leaseUntil`), and its `rate` per second (`seen`
 * decisions since `since`).
 */
const UNSEEN = { leased: 0, leaseUntil: 0, used: 0, endsAt: 0, spentUntil: 0, seen: 0, rate: 0 };
type KeyState = typeof UNSEEN & { key: string; limit: number; durationMs: number; since: number };
type Waiting = { state: KeyState; resolve: (decision: Decision) => void };
/** A lease lasts this long; its unused points go back with the key's next batch. */
const LEASE_MS = 100;
/**
 * Below this rate a key leases nothing and stays exact (a client pacing itself on the headers
 * meets no 429 that a wasted lease made); above it, its writes are what would cost.
 */
const LEASE_MIN_RATE = 200;
/**
 * A lease holds at most this share of the limit: points leased and then left unused (the
 * process's clients stopped) are refused to the other processes' clients until the window ends.
 */
export const LEASE_SHARE = 20;

/** The decision for the point that made the key's count `points`; at its limit, spent until its window ends. */
function decide(state: KeyState, points: number): Decision {
  const { limit } = state;
  if (points >= limit) state.spentUntil = state.endsAt;
  return {
    allowed: points <= limit,
    remaining: Math.max(0, limit - points),
    msBeforeNext: Math.max(0, state.endsAt - Date.now()),
  };
}

/**
 * The points of one event-loop turn go to the store in one batch, one batch at a time, so the
 * processes sharing it never pass a limit. A busy key leases what its rate needs for LEASE_MS
 * (at most a quarter of what is left and a LEASE_SHARE-th of the limit) and a spent key is
 * refused, both from memory. Without a store, or while it fails, a key counts on from what this
 * process knows of it: never a failed request.
 */
export class SharedCounts {
  readonly #keys = new LRUCache<string, KeyState>({ max: MAX_KEYS });
  readonly #sweep: NodeJS.Timeout;
  #waiting: Waiting[] = [];
  #flushing: Promise<void> | undefined;
  #sweeping = false;

  constructor(
    private readonly store?: CountStore,
    private readonly onStoreError: (error: unknown) => void = () => undefined,
  ) {
    const sweep = () => void this.sweep().catch(() => undefined); // the next one starts over
    this.#sweep = setInterval(sweep, SWEEP_EVERY_MS).unref();
  }

  /**
   * A slice per turn of the event loop, one sweep at a time; resolves with the slices it took.
   * A sweep running when the store closes fails at its next slice.
   */
  async sweep(): Promise<number> {
    if (this.#sweeping || this.store === undefined) return 0;
    this.#sweeping = true;
    try {
      const before = Date.now() - SWEEP_EVERY_MS;
      let slices = 0;
      for (let after: string | undefined = ''; after !== undefined; slices += 1) {
        after = await this.store.sweepSlice(after, before);
        await new Promise(setImmediate);
      }
      return slices;
    } finally {
      this.#sweeping = false;
    }
  }

  /**
   * Decided in memory (a spent key, a leased point), else in the turn's batch. A key keeps the
   * limit and window of its first call (each key of RateLimits has one).
   */
  async consume(key: string, limit: number, durationMs: number): Promise<Decision> {
    const now = Date.now();
    let state = this.#keys.get(key);
    if (state === undefined) {
      state = { ...UNSEEN, key, limit, durationMs, since: now };
      this.#keys.set(key, state);
    }
    state.seen += 1;
    if (state.spentUntil > now)
      return { allowed: false, remaining: 0, msBeforeNext: state.spentUntil - now };
    if (state.leased > 0 && state.leaseUntil > now && state.endsAt > now) {
      state.leased -= 1;
      state.used += 1;
      return decide(state, state.used);
    }
    return new Promise((resolve) => {
      this.#waiting.push({ state, resolve });
      this.#flushing ??= this.#flush();
    });
  }

  /** When `key`, known spent, has points again (0 when not known spent). */
  spentUntil(key: string): number {
    return this.#keys.peek(key)?.spentUntil ?? 0;
  }

  close(): void {
    clearInterval(this.#sweep);
    this.store?.close?.();
  }

  /** While requests wait: the next turn's batch, once the one before is done. */
  async #flush(): Promise<void> {
    while (this.#waiting.length > 0) {
      await new Promise(setImmediate);
      await this.#run(this.#waiting.splice(0));
    }
    this.#flushing = undefined;
  }

  async #run(batch: readonly Waiting[]): Promise<void> {
    const now = Date.now();
    const byKey = new Map<string, { state: KeyState; resolves: Waiting['resolve'][] }>();
    for (const { state, resolve } of batch) {
      const group = byKey.get(state.key) ?? { state, resolves: [] };
      byKey.set(state.key, group);
      group.resolves.push(resolve);
    }
    const takes = [...byKey.values()].map(({ state, resolves }) => {
      if (now - state.since >= LEASE_MS) {
        state.rate = (state.seen * 1000) / (now - state.since);
        state.seen = 0;
        state.since = now;
      }
      const { key, limit, durationMs } = state;
      const live = state.endsAt > now;
      const wanted = state.rate >= LEASE_MIN_RATE ? Math.floor((state.rate * LEASE_MS) / 1000) : 0;
      const left = live ? limit - state.used - resolves.length : 0;
      const lease = Math.max(
        0,
        Math.min(wanted, Math.floor(left / 4), Math.floor(limit / LEASE_SHARE)),
      );
      // The lease this batch replaces (lapsed, or granted while these requests waited) gives
      // its unused points back while their window is surely open: no client is refused for
      // points nobody used.
      const points = resolves.length + lease - (state.endsAt - now > LEASE_MS ? state.leased : 0);
      // The count after this batch as this process knows it: what it goes on when the store fails.
      const local = live
        ? { points: state.used + state.leased + points, endsAt: state.endsAt }
        : { points, endsAt: now + durationMs };
      state.leased = 0;
      return { key, points, durationMs, state, resolves, lease, local };
    });
    const counts = await this.store?.add(takes, now).catch((error: unknown) => {
      this.onStoreError(error);
      return undefined;
    });
    for (const { state, resolves, lease, local } of takes) {
      const count = counts?.get(state.key) ?? local;
      // Each request gets the count just after its own point, in arrival order.
      const before = count.points - lease - resolves.length;
      state.used = before + resolves.length;
      state.endsAt = count.endsAt;
      state.leased = Math.max(0, Math.min(lease, state.limit - state.used));
      state.leaseUntil = now + LEASE_MS;
      for (const [j, resolve] of resolves.entries()) {
        resolve(decide(state, before + j + 1));
      }
    }
  }
}
