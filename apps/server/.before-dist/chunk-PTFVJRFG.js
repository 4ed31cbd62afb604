import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);
import {
  SqliteError,
  StoreUnavailableError,
  postgresCode,
  translatePostgresError
} from "./chunk-ED44OKCU.js";

// src/auth/token-registry.ts
import { hash } from "crypto";
function digestToken(token) {
  return hash("sha256", token, "hex");
}
var TokenRegistry = class _TokenRegistry {
  constructor(byDigest, managed) {
    this.byDigest = byDigest;
    this.managed = managed;
  }
  byDigest;
  managed;
  static fromTokens(tokens, managed) {
    const named = tokens.map((token, i) => [digestToken(token), { name: `env#${i + 1}` }]);
    return new _TokenRegistry(new Map(named), managed);
  }
  /** A configured token is answered without a promise: the hot path. */
  authenticate(token) {
    const digest = digestToken(token);
    return this.byDigest.get(digest) ?? this.managed?.verify(token, digest);
  }
};

// src/auth/manage-tokens.ts
import { z } from "zod";

// src/auth/token-format.ts
import { randomBytes } from "crypto";
import { crc32 } from "zlib";
var TOKEN_PREFIX = "pst_";
var TOKEN_LENGTH = TOKEN_PREFIX.length + 43 + 6;
var TOKEN_SHAPE = new RegExp(`^${TOKEN_PREFIX}[A-Za-z0-9_-]{49}$`);
var checksumOf = (text) => {
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc32(text));
  return sum.toString("base64url");
};
function generateToken() {
  const body = TOKEN_PREFIX + randomBytes(32).toString("base64url");
  return body + checksumOf(body);
}
function checkTokenFormat(token) {
  if (!TOKEN_SHAPE.test(token)) return "malformed";
  const split = token.length - 6;
  return checksumOf(token.slice(0, split)) === token.slice(split) ? "ok" : "checksum";
}

// src/auth/manage-tokens.ts
var UNIT_MS = { s: 1e3, m: 6e4, h: 36e5, d: 864e5, w: 6048e5 };
var MAX_LIFETIME_MS = 3650 * UNIT_MS.d;
var TokenLifetime = z.string().regex(
  /^(?:\d+[smhdw])+$/,
  "use a number and a unit (s, m, h, d, w), e.g. 30d, 12h, 90m or 1d12h"
).transform(
  (text) => [...text.matchAll(/(\d+)([smhdw])/g)].reduce(
    (total, [, amount, unit]) => total + Number(amount) * UNIT_MS[unit],
    0
  )
).pipe(z.number().min(1, "must be > 0").max(MAX_LIFETIME_MS, "at most 3650d (ten years)"));
function tokenNameProblem(name) {
  if (/^[A-Za-z][A-Za-z0-9._-]{0,63}$/.test(name)) return void 0;
  return `a token name starts with a letter and has at most 64 letters, digits, ".", "_" or "-" (got ${JSON.stringify(name)})`;
}
var TokenUsageError = class extends Error {
  name = "TokenUsageError";
};
async function createManagedToken(store, options) {
  const problem = tokenNameProblem(options.name);
  if (problem !== void 0) throw new TokenUsageError(`Invalid --name: ${problem}`);
  const lifetime = TokenLifetime.optional().safeParse(options.expires);
  if (!lifetime.success) {
    const why = lifetime.error.issues[0]?.message;
    throw new TokenUsageError(`Invalid --expires ${JSON.stringify(options.expires)}: ${why}`);
  }
  const now = options.now ?? /* @__PURE__ */ new Date();
  const token = generateToken();
  const record = await store.insert({
    name: options.name,
    digest: digestToken(token),
    createdAt: now,
    expiresAt: lifetime.data === void 0 ? null : new Date(now.getTime() + lifetime.data)
  });
  return { token, record };
}
async function revokeManagedToken(store, idOrName) {
  const now = /* @__PURE__ */ new Date();
  if (/^\d{1,15}$/.test(idOrName)) return store.revoke({ id: Number(idOrName) }, now);
  const problem = tokenNameProblem(idOrName);
  if (problem !== void 0) throw new TokenUsageError(`Not a token id or name: ${problem}`);
  return store.revoke({ name: idOrName }, now);
}
function tokenStatus(record, now = /* @__PURE__ */ new Date()) {
  if (record.revokedAt !== null) return "revoked";
  if (record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime()) return "expired";
  return "active";
}

// src/auth/managed-token-verifier.ts
import { LRUCache } from "lru-cache";
var TOKEN_CACHE_TTL_MS = 3e3;
var ManagedTokenVerifier = class {
  constructor(store, { maxEntries = 1e4, now = Date.now } = {}) {
    this.store = store;
    this.#now = now;
    const cache = { max: maxEntries, perf: { now }, ttlResolution: 0 };
    this.#valid = new LRUCache({ ...cache, ttl: TOKEN_CACHE_TTL_MS });
    this.#refused = new LRUCache({ ...cache, ttl: 2e3 });
  }
  store;
  #now;
  #valid;
  #refused;
  #pending = /* @__PURE__ */ new Map();
  verify(token, digest = digestToken(token)) {
    const cached = this.#valid.get(digest);
    if (cached !== void 0 && cached.expiresAt > this.#now()) return cached.credential;
    if (checkTokenFormat(token) !== "ok" || this.#refused.has(digest)) return void 0;
    const pending = this.#pending.get(digest) ?? this.#lookUp(digest).finally(() => this.#pending.delete(digest));
    this.#pending.set(digest, pending);
    return pending;
  }
  async #lookUp(digest) {
    const record = await this.store.findByDigest(digest);
    const expiresAt = record?.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
    if (record === void 0 || record.revokedAt !== null || expiresAt <= this.#now()) {
      this.#refused.set(digest, true);
      return void 0;
    }
    const credential = { name: record.name };
    this.#valid.set(digest, { credential, expiresAt });
    return credential;
  }
};

// src/auth/token-store.ts
var TokenNameTakenError = class extends Error {
  constructor(tokenName) {
    super(
      `A token named ${JSON.stringify(tokenName)} is already active; revoke it first or choose another name`
    );
    this.tokenName = tokenName;
  }
  tokenName;
  name = "TokenNameTakenError";
};
var COLUMNS = "id, name, created_at, expires_at, revoked_at";
var SELECT = `SELECT ${COLUMNS} FROM tokens`;
var RETIRE_EXPIRED = `UPDATE tokens SET revoked_at = $1
  WHERE name = $2 AND revoked_at IS NULL AND expires_at IS NOT NULL AND expires_at <= $1`;
var INSERT = `INSERT INTO tokens (name, digest, created_at, expires_at) VALUES ($1, $2, $3, $4)
  RETURNING ${COLUMNS}`;
var REVOKE = (column) => `UPDATE tokens SET revoked_at = $1 WHERE ${column} = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}`;
var date = (value) => value === null ? null : new Date(value);
var toRecord = (row) => ({
  id: Number(row.id),
  name: row.name,
  createdAt: new Date(row.created_at),
  expiresAt: date(row.expires_at),
  revokedAt: date(row.revoked_at)
});
function tokenStore(handle) {
  const sql = handle.kind === "sqlite" ? sqliteTokens(handle.db) : postgresTokens(handle.pool);
  let closed = false;
  const run = async (...statements) => {
    if (closed) throw new StoreUnavailableError("The token store is closed");
    return sql.run(statements);
  };
  return {
    // Revokes the name's expired holder first; TokenNameTakenError when an active one has it.
    insert: async ({ name, digest, createdAt, expiresAt }) => {
      const now = createdAt.toISOString();
      const expires = expiresAt?.toISOString() ?? null;
      try {
        const [, [row] = []] = await run(
          [RETIRE_EXPIRED, [now, name]],
          [INSERT, [name, digest, now, expires]]
        );
        return toRecord(row);
      } catch (error) {
        throw sql.isNameTaken(error) ? new TokenNameTakenError(name) : error;
      }
    },
    list: async () => {
      const [rows = []] = await run([`${SELECT} ORDER BY id`, []]);
      return rows.map(toRecord);
    },
    // The token with this id, or the name's active one; failing that, the latest says why not.
    revoke: async (selector, at) => {
      const [column, value] = "id" in selector ? ["id", selector.id] : ["name", selector.name];
      const [[revoked] = [], [latest] = []] = await run(
        [REVOKE(column), [at.toISOString(), value]],
        [`${SELECT} WHERE ${column} = $1 ORDER BY id DESC LIMIT 1`, [value]]
      );
      if (revoked) return { status: "revoked", token: toRecord(revoked) };
      if (latest) return { status: "already-revoked", token: toRecord(latest) };
      return { status: "not-found" };
    },
    findByDigest: async (digest) => {
      const lookUp = run([`${SELECT} WHERE digest = $1`, [digest]]);
      const [[row] = []] = await lookUp.catch((error) => {
        if (error instanceof StoreUnavailableError) throw error;
        throw new StoreUnavailableError(`Could not look up a token: ${String(error)}`, {
          cause: error
        });
      });
      return row === void 0 ? void 0 : toRecord(row);
    },
    close: async () => {
      closed = true;
    }
  };
}
function sqliteTokens(db) {
  const prepared = /* @__PURE__ */ new Map();
  const all = ([sql, values]) => {
    const statement = prepared.get(sql) ?? db.prepare(sql);
    prepared.set(sql, statement);
    const parameters = Object.fromEntries(values.map((value, i) => [i + 1, value]));
    if (statement.reader) return statement.all(parameters);
    statement.run(parameters);
    return [];
  };
  const transaction = db.transaction((statements) => statements.map(all));
  return {
    run: async (statements) => statements.length === 1 ? statements.map(all) : transaction.immediate(statements),
    isNameTaken: (error) => error instanceof SqliteError && error.code === "SQLITE_CONSTRAINT_UNIQUE" && error.message.includes("tokens.name")
  };
}
function postgresTokens(pool) {
  const fail = (error) => {
    throw translatePostgresError(error);
  };
  const query = async (on, [sql, values]) => (await on.query(sql, [...values])).rows;
  const isNameTaken = (error) => postgresCode(error) === "23505" && error.constraint === "tokens_active_name";
  return {
    isNameTaken,
    run: async (statements) => {
      if (statements.length === 1) {
        return Promise.all(statements.map((s) => query(pool, s))).catch(fail);
      }
      const client = await pool.connect().catch(fail);
      try {
        await client.query("BEGIN");
        const rows = [];
        for (const statement of statements) rows.push(await query(client, statement));
        await client.query("COMMIT");
        client.release();
        return rows;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => void 0);
        client.release(!isNameTaken(error));
        throw translatePostgresError(error);
      }
    }
  };
}

export {
  TokenRegistry,
  TokenUsageError,
  createManagedToken,
  revokeManagedToken,
  tokenStatus,
  TOKEN_CACHE_TTL_MS,
  ManagedTokenVerifier,
  tokenStore
};
//# sourceMappingURL=chunk-PTFVJRFG.js.map