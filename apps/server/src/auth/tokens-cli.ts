import { parseArgs } from 'node:util';
import type { StoreConfig } from '../config.ts';
import { maskUrl } from '../store/mask-url.ts';
import { parseDatabaseUrl } from '../store/open-store.ts';
import {
  createManagedToken,
  revokeManagedToken,
  TokenUsageError,
  tokenStatus,
} from './manage-tokens.ts';
import { TOKEN_CACHE_TTL_MS } from './managed-token-verifier.ts';
import { openTokenStore } from './open-token-store.ts';
import type { TokenRecord, TokenStore } from './token-store.ts';

/** Where the command writes, and how it finds the store (tests pass their own). */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  /** Notes for a person go here only when it is a terminal: a script sees nothing on success. */
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  /** The store settings; normally `loadStoreConfig()` (the environment, via config.ts). */
  readonly storeConfig: () => StoreConfig;
}

export const USAGE = `Usage: plant-store tokens <command>

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
      ${TOKEN_CACHE_TTL_MS / 1000} s (their token cache).

Exit status: 0 done, 1 failed (e.g. name taken, no such token, store unreachable), 2 usage.
`;

/** A mistake in the command line: usage on stderr, exit status 2. */
class UsageError extends Error {}

/**
 * Runs `plant-store <args>` and resolves with the exit status. Output goes to `io`; the
 * store is opened only for a valid command, and closed before returning.
 *
 * @example
 * const status = await runCli(['tokens', 'list'], { stdout: process.stdout, stderr: process.stderr, storeConfig: () => loadStoreConfig() });
 */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(args, io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof TokenUsageError) {
      io.stderr.write(`plant-store: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    // A taken name, a bad configuration, a store it cannot open: one line, exit status 1.
    io.stderr.write(`plant-store: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

async function dispatch(args: readonly string[], io: CliIo): Promise<number> {
  const [group, command, ...rest] = args;
  if (group === '--help' || group === '-h' || group === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }
  if (group !== 'tokens') {
    throw new UsageError(group === undefined ? 'no command given' : `unknown command "${group}"`);
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }
  switch (command) {
    case 'create': {
      const { values } = parse(rest, {
        name: { type: 'string' },
        expires: { type: 'string' },
      });
      if (values.name === undefined) throw new UsageError('tokens create needs --name <consumer>');
      return withStore(io, async (store, where) => {
        const { token, record } = await createManagedToken(store, {
          name: values.name as string,
          expires: values.expires as string | undefined,
        });
        io.stdout.write(`${token}\n`);
        // For a person at a terminal; `TOKEN=$(plant-store tokens create …)` gets the token alone.
        if (io.stderr.isTTY === true)
          io.stderr.write(
            `Created token ${record.id} for "${record.name}" in ${where}, ` +
              `${record.expiresAt === null ? 'never expires' : `expires ${record.expiresAt.toISOString()}`}.\n` +
              'The token above is shown only now: keep it as a secret (only its SHA-256 is stored).\n',
          );
        return 0;
      });
    }
    case 'list': {
      const { values } = parse(rest, { json: { type: 'boolean' } });
      return withStore(io, async (store) => {
        const tokens = await store.list();
        const now = new Date();
        io.stdout.write(values.json ? `${listJson(tokens, now)}\n` : listTable(tokens, now));
        return 0;
      });
    }
    case 'revoke': {
      const { positionals } = parse(rest, {}, true);
      const [target, extra] = positionals;
      if (target === undefined || extra !== undefined) {
        throw new UsageError('tokens revoke needs exactly one <id|name>');
      }
      return withStore(io, async (store) => {
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
      });
    }
    default:
      throw new UsageError(
        command === undefined ? 'tokens needs a command' : `unknown command "tokens ${command}"`,
      );
  }
}

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

function parse(args: readonly string[], options: OptionSpec, allowPositionals = false) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

async function withStore(
  io: CliIo,
  run: (store: TokenStore, where: string) => Promise<number>,
): Promise<number> {
  const { databaseUrl, postgres } = io.storeConfig();
  const store = await openTokenStore(databaseUrl, postgres);
  try {
    return await run(store, describeDatabase(databaseUrl));
  } finally {
    await store.close();
  }
}

/** The database for a message: the SQLite file, or the PostgreSQL URL with its password masked. */
function describeDatabase(databaseUrl: string): string {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === 'sqlite') return location.filename;
  return maskUrl(location.url);
}

const time = (date: Date | null, none: string) => (date === null ? none : date.toISOString());

function listTable(tokens: readonly TokenRecord[], now: Date): string {
  if (tokens.length === 0)
    return 'No tokens. Create one with: plant-store tokens create --name <consumer>\n';
  const rows = [
    ['ID', 'NAME', 'STATUS', 'CREATED', 'EXPIRES', 'REVOKED'],
    ...tokens.map((token) => [
      String(token.id),
      token.name,
      tokenStatus(token, now),
      time(token.createdAt, '-'),
      time(token.expiresAt, 'never'),
      time(token.revokedAt, '-'),
    ]),
  ];
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}

function listJson(tokens: readonly TokenRecord[], now: Date): string {
  return JSON.stringify(
    tokens.map((token) => ({
      id: token.id,
      name: token.name,
      status: tokenStatus(token, now),
      createdAt: token.createdAt.toISOString(),
      expiresAt: token.expiresAt?.toISOString() ?? null,
      revokedAt: token.revokedAt?.toISOString() ?? null,
    })),
    null,
    2,
  );
}
