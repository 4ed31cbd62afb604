#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);
import {
  TOKEN_CACHE_TTL_MS,
  TokenUsageError,
  createManagedToken,
  revokeManagedToken,
  tokenStatus,
  tokenStore
} from "./chunk-PTFVJRFG.js";
import {
  createPrivateFile,
  loadStoreConfig,
  openDatabaseHandle,
  openSqlite,
  schemaVersion
} from "./chunk-ED44OKCU.js";

// src/auth/tokens-cli.ts
import { parseArgs } from "util";

// src/store/backup.ts
import { rmSync } from "fs";
async function backupSqlite(source, target) {
  const db = openSqlite(source, { readonly: true, fileMustExist: true });
  try {
    try {
      createPrivateFile(target, { exclusive: true });
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      throw new Error(`${target} exists: a backup goes to a new file`);
    }
    try {
      const { totalPages } = await db.backup(target, { progress: () => 2147483647 });
      return { pages: totalPages, schemaVersion: schemaVersion(db) };
    } catch (error) {
      rmSync(target, { force: true });
      throw error;
    }
  } finally {
    db.close();
  }
}

// src/auth/tokens-cli.ts
var USAGE = `Usage: plant-store tokens <command> | plant-store backup <file>

Manage the bearer tokens the Plant Store server accepts, in the database DATABASE_URL names
(the server's: a SQLite file or a PostgreSQL URL; default ./data/plants.db).

Commands:
  tokens create --name <consumer> [--expires <duration>]
      Make a token for a consumer and print it once (on stdout; nothing else goes there;
      at a terminal a note on stderr says where it was stored and when it expires).
      Only its SHA-256 is stored. --expires: 30d, 12h, 90m, 45s, 2w or sums like 1d12h
      (at most 3650d); without it the token does not expire.
  tokens list [--json]
      Show every token: id, name, status, created, expires, revoked (never the token).
  tokens revoke <id|name>
      Revoke a token by its id or its consumer's name. Running servers refuse it within
      ${TOKEN_CACHE_TTL_MS / 1e3} s (their token cache).
  backup <file>
      Copy the SQLite database into the new file <file> (mode 0600), also while servers
      write to it (for PostgreSQL use pg_dump; see docs/operations.md, "Backups").

Exit status: 0 done, 1 failed (e.g. name taken, no such token, store unreachable), 2 usage.
`;
var HELP = ["--help", "-h", "help"];
async function runCli(args, io) {
  try {
    return await dispatch(args, io);
  } catch (error) {
    const mistake = error instanceof TokenUsageError || String(error?.code).startsWith("ERR_PARSE_ARGS");
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`plant-store: ${message}
${mistake ? `
${USAGE}` : ""}`);
    return mistake ? 2 : 1;
  }
}
async function dispatch(args, io) {
  const [group = "", command = "", ...rest] = args;
  if (HELP.includes(group) || group === "tokens" && HELP.includes(command)) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (group === "backup") {
    const target = onlyArgument(args.slice(1), "backup needs exactly one <file>");
    const location = io.storeConfig().database;
    if (location.kind !== "sqlite") {
      throw new Error(
        'backup copies a SQLite database; for PostgreSQL use pg_dump (docs/operations.md, "Backups")'
      );
    }
    const copied = await backupSqlite(location.filename, target);
    io.stdout.write(
      `Backed up ${location.filename} (schema version ${copied.schemaVersion}, ${copied.pages} pages) to ${target}
`
    );
    return 0;
  }
  if (group !== "tokens") {
    throw new TokenUsageError(
      args.length === 0 ? "no command given" : `unknown command "${group}"`
    );
  }
  if (command === "create") {
    const options = { name: { type: "string" }, expires: { type: "string" } };
    const { name, expires } = parseArgs({ args: rest, options }).values;
    if (name === void 0) throw new TokenUsageError("tokens create needs --name <consumer>");
    return withStore(io, async (store, where) => {
      const { token, record } = await createManagedToken(store, { name, expires });
      io.stdout.write(`${token}
`);
      if (io.stderr.isTTY === true)
        io.stderr.write(
          `Created token ${record.id} for "${record.name}" in ${where}, ${record.expiresAt === null ? "never expires" : `expires ${record.expiresAt.toISOString()}`}.
The token above is shown only now: keep it as a secret (only its SHA-256 is stored).
`
        );
      return 0;
    });
  }
  if (command === "list") {
    const { values } = parseArgs({ args: rest, options: { json: { type: "boolean" } } });
    return withStore(io, async (store) => {
      const tokens = await store.list();
      io.stdout.write(values.json ? `${JSON.stringify(listed(tokens), null, 2)}
` : table(tokens));
      return 0;
    });
  }
  if (command === "revoke") {
    const target = onlyArgument(rest, "tokens revoke needs exactly one <id|name>");
    return withStore(io, async (store) => {
      const result = await revokeManagedToken(store, target);
      if (result.status === "not-found") {
        io.stderr.write(`plant-store: no token with id or name "${target}"
`);
        return 1;
      }
      const { id, name, revokedAt } = result.token;
      io.stdout.write(
        result.status === "revoked" ? `Revoked token ${id} "${name}" at ${revokedAt?.toISOString()}; running servers refuse it within ${TOKEN_CACHE_TTL_MS / 1e3} s.
` : `Token ${id} "${name}" was already revoked at ${revokedAt?.toISOString()}.
`
      );
      return 0;
    });
  }
  throw new TokenUsageError(
    args.length === 1 ? "tokens needs a command" : `unknown command "tokens ${command}"`
  );
}
function onlyArgument(args, mistake) {
  const [value, extra] = parseArgs({ args: [...args], allowPositionals: true }).positionals;
  if (value === void 0 || extra !== void 0) throw new TokenUsageError(mistake);
  return value;
}
async function withStore(io, run) {
  const { database, postgres } = io.storeConfig();
  const handle = await openDatabaseHandle(database, { postgres: { ...postgres, poolMax: 2 } });
  try {
    return await run(tokenStore(handle), database.shown);
  } finally {
    await handle.close();
  }
}
var listed = (tokens, now = /* @__PURE__ */ new Date()) => tokens.map((token) => ({
  id: token.id,
  name: token.name,
  status: tokenStatus(token, now),
  createdAt: token.createdAt.toISOString(),
  expiresAt: token.expiresAt?.toISOString() ?? null,
  revokedAt: token.revokedAt?.toISOString() ?? null
}));
function table(tokens) {
  if (tokens.length === 0)
    return "No tokens. Create one with: plant-store tokens create --name <consumer>\n";
  const rows = [["ID", "NAME", "STATUS", "CREATED", "EXPIRES", "REVOKED"]].concat(
    listed(tokens).map((t) => [
      String(t.id),
      t.name,
      t.status,
      t.createdAt,
      t.expiresAt ?? "never",
      t.revokedAt ?? "-"
    ])
  );
  const widths = rows[0]?.map(
    (_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))
  );
  const line = (row) => row.map((cell, column) => cell.padEnd(widths?.[column] ?? 0)).join("  ");
  return `${rows.map((row) => line(row).trimEnd()).join("\n")}
`;
}

// src/cli.ts
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  storeConfig: () => loadStoreConfig()
});
//# sourceMappingURL=cli.js.map