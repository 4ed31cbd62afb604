import { parseArgs } from 'node:util';
import { loadStoreConfig } from '../config.ts';
import { backupSqlite, checkBackup } from '../store/backup.ts';
import { openDatabaseHandle } from '../store/database.ts';
import { errorCode } from '../store/plant-store.ts';
import {
  createManagedToken,
  revokeManagedToken,
  TokenUsageError,
  tokenStatus,
} from './manage-tokens.ts';
import { TOKEN_CACHE_TTL_MS } from './token-registry.ts';
import { type TokenRecord, type TokenStore, tokenStore } from './token-store.ts';

interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  /** Names the store (DATABASE_URL, PG_*), read only by a command that opens it. */
  readonly env: NodeJS.ProcessEnv;
}

const USAGE = `Usage: plant-store tokens create --name <consumer> [--expires <duration>]
       plant-store tokens list [--json]
       plant-store tokens revoke <id|name>
       plant-store backup [--check] <file>

The tokens live in the database DATABASE_URL names (default ./data/plants.db); only a token's
SHA-256 is stored: create prints the token once, alone on stdout. --expires: 30d, 12h, 90m,
45s, 2w or sums like 1d12h (at most 3650d; none: never). A revoked token is refused by running
servers within ${TOKEN_CACHE_TTL_MS / 1000} s. backup copies the SQLite database into a new file
(PostgreSQL: pg_dump); --check checks a backup. docs/operations.md says more.
Exit status: 0 done, 1 failed (e.g. name taken, no such token, store unreachable), 2 usage.
`;

/**
 * `plant-store <args>` on `io`'s streams, with the store `io.env` names (read only by a command
 * that opens it); resolves with the exit status.
 * @example
 * process.exitCode = await runCli(['tokens', 'list'], process);
 */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(args, io);
  } catch (error) {
    const mistake =
      error instanceof TokenUsageError || errorCode(error)?.startsWith('ERR_PARSE_ARGS') === true;
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`plant-store: ${message}\n${mistake ? `\n${USAGE}` : ''}`);
    return mistake ? 2 : 1;
  }
}

type Command = (args: string[], io: CliIo, store: TokenStore, where: string) => Promise<number>;

const TOKEN_COMMANDS: Record<string, Command> = {
  create: async (args, io, store, where) => {
    const options = { name: { type: 'string' }, expires: { type: 'string' } } as const;
    const { name, expires } = parseArgs({ args, options }).values;
    if (name === undefined) throw new TokenUsageError('tokens create needs --name <consumer>');
    const { token, record } = await createManagedToken(store, { name, expires });
    io.stdout.write(`${token}\n`);
    // For a person at a terminal; `TOKEN=$(plant-store tokens create …)` gets the token alone.
    if (io.stderr.isTTY === true)
      io.stderr.write(
        `Created token ${record.id} for "${record.name}" in ${where}, ` +
          `${record.expiresAt === null ? 'never expires' : `expires ${record.expiresAt.toISOString()}`}.\n` +
          'The token above is shown only now: keep it as a secret (only its SHA-256 is stored).\n',
      );
    return 0;
  },
  list: async (args, io, store) => {
    const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
    const now = new Date();
    const tokens = (await store.list()).map((t) => ({ ...t, status: tokenStatus(t, now) }));
    io.stdout.write(values.json ? `${JSON.stringify(tokens, null, 2)}\n` : table(tokens));
    return 0;
  },
  revoke: async (args, io, store) => {
    const [target, extra] = parseArgs({ args, allowPositionals: true }).positionals;
    if (target === undefined || extra !== undefined)
      throw new TokenUsageError('tokens revoke needs exactly one <id|name>');
    const result = await revokeManagedToken(store, target);
    if (result.status === 'not-found') {
      io.stderr.write(`plant-store: no token with id or name "${target}"\n`);
      return 1;
    }
    const { id, name, revokedAt } = result.token;
    io.stdout.write(
      result.status === 'revoked'
        ? `Revoked token ${id} "${name}" at ${revokedAt?.toISOString()}; running servers refuse it within ${TOKEN_CACHE_TTL_MS / 1000} s.\n`
        : `Token ${id} "${name}" was already revoked at ${revokedAt?.toISOString()}.\n`,
    );
    return 0;
  },
};

async function dispatch(args: readonly string[], io: CliIo): Promise<number> {
  const [group = '', command = '', ...rest] = args;
  if (['--help', '-h', 'help'].includes(group === 'tokens' ? command : group)) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (group === 'backup') return backup(args.slice(1), io);
  if (group !== 'tokens')
    throw new TokenUsageError(
      args.length === 0 ? 'no command given' : `unknown command "${group}"`,
    );
  const run = Object.hasOwn(TOKEN_COMMANDS, command) ? TOKEN_COMMANDS[command] : undefined;
  if (run === undefined)
    throw new TokenUsageError(
      args.length === 1 ? 'tokens needs a command' : `unknown command "tokens ${command}"`,
    );
  const { database, postgres } = loadStoreConfig(io.env);
  // Opened (and migrated) as the server does: the tool works before a server ever ran.
  const handle = await openDatabaseHandle(database, { postgres: { ...postgres, poolMax: 2 } });
  try {
    return await run(rest, io, tokenStore(handle), database.shown); // a URL's password masked
  } finally {
    await handle.close();
  }
}

async function backup(args: string[], io: CliIo): Promise<number> {
  const options = { check: { type: 'boolean' } } as const;
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
  const [file, extra] = positionals;
  if (file === undefined || extra !== undefined)
    throw new TokenUsageError(`backup ${values.check ? '--check ' : ''}needs exactly one <file>`);
  if (values.check) {
    const { schemaVersion, plants } = checkBackup(file);
    io.stdout.write(`${file}: quick_check ok, schema version ${schemaVersion}, ${plants} plants\n`);
    return 0;
  }
  const location = loadStoreConfig(io.env).database;
  if (location.kind !== 'sqlite')
    throw new Error(
      'backup copies a SQLite database; for PostgreSQL use pg_dump (docs/operations.md, "Backups")',
    );
  const copied = await backupSqlite(location.filename, file);
  io.stdout.write(
    `Backed up ${location.filename} (schema version ${copied.schemaVersion}, ${copied.pages} pages, ${copied.plants} plants, quick_check ok) to ${file}\n`,
  );
  return 0;
}

function table(tokens: readonly (TokenRecord & { status: string })[]): string {
  if (tokens.length === 0)
    return 'No tokens. Create one with: plant-store tokens create --name <consumer>\n';
  const header = ['ID', 'NAME', 'STATUS', 'CREATED', 'EXPIRES', 'REVOKED'];
  const rows = [header].concat(
    tokens.map((t) => [
      String(t.id),
      t.name,
      t.status,
      t.createdAt.toISOString(),
      t.expiresAt?.toISOString() ?? 'never',
      t.revokedAt?.toISOString() ?? '-',
    ]),
  );
  const widths = header.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)));
  const line = (row: string[]) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
  return `${rows.map((row) => line(row).trimEnd()).join('\n')}\n`;
}
