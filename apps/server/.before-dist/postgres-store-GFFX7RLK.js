import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);
import {
  BatchedStore,
  INT64_MAX,
  INT64_MIN
} from "./chunk-UVURL2WZ.js";
import {
  describePostgresFailure,
  isPostgresUnavailable,
  isStaleConnection,
  openDatabaseHandle,
  outcomeAgainst,
  translatePostgresError
} from "./chunk-ED44OKCU.js";

// src/store/postgres/postgres-store.ts
var INSERT_BATCH = `
  INSERT INTO plants (id, name, tag)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])
  ON CONFLICT (id) DO NOTHING
  RETURNING id`;
var SELECT_MANY = "SELECT id, name, tag FROM plants WHERE id = ANY($1::bigint[])";
var PROBE_WRITE = `
  WITH probe AS (INSERT INTO plants (id, name) SELECT 0, '' WHERE false RETURNING id)
  SELECT txid_current() AS xid, (SELECT count(*) FROM probe) AS inserted`;
async function createPostgresStore(options) {
  const owned = options.handle === void 0;
  const handle = options.handle ?? await openDatabaseHandle(
    { kind: "postgres", url: options.url, shown: "" },
    { ...options, postgres: options }
  );
  return new PostgresStore(options, handle, owned);
}
var PostgresStore = class extends BatchedStore {
  #handle;
  #owned;
  constructor(options, handle, owned) {
    super(options, 2);
    this.#handle = handle;
    this.#owned = owned;
    this.startProbing();
  }
  settings() {
    return this.#handle.settings;
  }
  // A silent connection gives up after connectTimeoutMs.
  async query1() {
    await this.#query("SELECT 1", [], this.#handle.settings.connectTimeoutMs);
  }
  async probeWrite() {
    await this.#query(PROBE_WRITE, [], this.#handle.settings.connectTimeoutMs);
  }
  translate = translatePostgresError;
  describe = describePostgresFailure;
  async release() {
    if (this.#owned) await this.#handle.close();
  }
  async commitBatch(plants) {
    const problems = plants.map(rowProblem);
    const first = /* @__PURE__ */ new Map();
    plants.forEach((plant, index) => {
      if (problems[index] === void 0 && !first.has(plant.id)) first.set(plant.id, plant);
    });
    const candidates = [...first.values()].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const { created, failed } = await this.#insert(candidates);
    const lookUp = candidates.filter((p) => !created.has(p.id) && !failed.has(p.id));
    let lookUpError;
    const ids = lookUp.map((plant) => plant.id.toString());
    const rows = ids.length === 0 ? [] : await this.#query(SELECT_MANY, [ids]).catch((error) => {
      lookUpError = error;
      return [];
    });
    const existing = new Map(rows.map((row) => [row.id, row]));
    return plants.map((plant, index) => {
      const problem = problems[index] ?? failed.get(plant.id);
      if (problem !== void 0) return { ok: false, error: problem };
      const winner = first.get(plant.id);
      if (created.has(plant.id) && winner !== void 0) {
        return { ok: true, value: winner === plant ? "created" : outcomeAgainst(winner, plant) };
      }
      const row = existing.get(plant.id);
      if (row !== void 0) return { ok: true, value: outcomeAgainst(row, plant) };
      return {
        ok: false,
        error: lookUpError ?? new Error(`Plant ${plant.id} was neither inserted nor found`)
      };
    });
  }
  /** When the database refuses a row, one INSERT per plant, so only that row fails. */
  async #insert(candidates) {
    const created = /* @__PURE__ */ new Set();
    const failed = /* @__PURE__ */ new Map();
    const insert = async (rows) => {
      const inserted = await this.#query(INSERT_BATCH, [
        rows.map((plant) => plant.id.toString()),
        rows.map((plant) => plant.name),
        rows.map((plant) => plant.tag ?? null)
      ]);
      for (const row of inserted) created.add(row.id);
    };
    try {
      if (candidates.length > 0) await insert(candidates);
    } catch (error) {
      if (isPostgresUnavailable(error)) throw error;
      for (const plant of candidates) {
        await insert([plant]).catch((error2) => {
          if (isPostgresUnavailable(error2)) throw error2;
          failed.set(plant.id, error2);
        });
      }
    }
    return { created, failed };
  }
  /** Every query here is idempotent: one that met a dead pooled connection is sent again. */
  async #query(text, values, queryTimeoutMs) {
    const query = { text, values };
    if (queryTimeoutMs !== void 0) query.query_timeout = queryTimeoutMs;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return (await this.#handle.pool.query(query)).rows;
      } catch (error) {
        if (attempt > this.#handle.settings.poolMax || !isStaleConnection(error)) throw error;
      }
    }
  }
};
function rowProblem(plant) {
  const { id, name, tag } = plant;
  if (typeof id !== "bigint" || id < INT64_MIN || id > INT64_MAX) {
    return new RangeError(`id must be a bigint from ${INT64_MIN} to ${INT64_MAX}`);
  }
  if (typeof name !== "string") return new TypeError("name must be a string");
  if (tag !== void 0 && typeof tag !== "string") {
    return new TypeError("tag must be a string when present");
  }
  if ([name, tag ?? ""].some((text) => text.includes("\0") || !text.isWellFormed())) {
    return new RangeError("name and tag must be well-formed Unicode without NUL characters");
  }
  return void 0;
}
export {
  PostgresStore,
  createPostgresStore
};
//# sourceMappingURL=postgres-store-GFFX7RLK.js.map