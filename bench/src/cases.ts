import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tokenChecksum } from './peers/work.ts';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REAL_MAIN = resolve(BENCH_DIR, '../apps/server/dist/main.js');
const PEERS_MAIN = resolve(BENCH_DIR, 'src/peers/main.ts');

/** One server to measure: how to start it and what its environment changes. */
export interface Case {
  readonly name: string;
  /** What it is, or what is off (ablation). */
  readonly note: string;
  readonly args: readonly string[];
  /** The build's `cli.js`: the bench token is a managed one made with it; else configured. */
  readonly cli?: string;
  /** Changes to the common environment; `null` removes a variable. */
  readonly env: Readonly<Record<string, string | null>>;
}

/**
 * Every feature on, as deployed: production, request log at info (stdout to a file), the
 * metrics listener, the per-token limit raised so it never refuses but still runs, the default
 * body limit, SQLite WAL synchronous=FULL with group commit. The peers read the same variables.
 */
export const COMMON_ENV: Readonly<Record<string, string>> = {
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  METRICS_PORT: '0',
  RATE_LIMIT_PER_SECOND: '1000000',
  RATE_LIMIT_BURST: '1000000',
  // The server's limit on requests without a credential (the asset GETs): runs, never refuses.
  BODY_LIMIT: '65536',
  DURABILITY: 'full',
};

/**
 * A build of the server as a case (its `cli.js` beside `main.js` makes the managed token).
 *
 * @example
 * serverCase('before', 'apps/server/before-dist/main.js');
 */
export function serverCase(name: string, main: string, note = `${main}, every feature on`): Case {
  // Relative to where `pnpm bench` was typed (pnpm's INIT_CWD), else to this directory.
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), main);
  const cli = resolve(dirname(path), 'cli.js');
  if (!existsSync(path) || !existsSync(cli)) {
    throw new Error(`${name}: no built server at ${path} (with cli.js beside it): build it first`);
  }
  return { name, note, args: [path], cli, env: {} };
}

function peerCase(name: string, note: string): Case {
  return { name, note, args: ['--import', 'tsx', PEERS_MAIN, name], env: {} };
}

/**
 * The five cases of a run: the deployed server, stock Koa (the target), a minimal stock Koa
 * (the same durable write, no limits, logs or metrics: the price of the features), Fastify,
 * bare node:http.
 */
export function standardCases(): Case[] {
  return [
    serverCase('real', REAL_MAIN, 'apps/server/dist/main.js, every feature on'),
    peerCase('koa', 'Koa + @koa/router + koa-bodyparser, the same work (the target)'),
    peerCase('koa-minimal', 'stock Koa, the same durable write only: no limits, logs, metrics'),
    peerCase('fastify', 'Fastify 5, the same work'),
    peerCase('bare', 'node:http, the same work'),
  ];
}

/** `real` with one feature off at a time, then all of them, and koa for reference (7 rows). */
export function ablationCases(): Case[] {
  const real = serverCase('real', REAL_MAIN, 'every feature on');
  const without = (name: string, note: string, env: Case['env']): Case => ({
    ...real,
    name,
    note,
    env,
  });
  const { cli: _managed, ...configured } = real;
  return [
    real,
    without('no-log', 'request log off (LOG_LEVEL=warn)', { LOG_LEVEL: 'warn' }),
    without('no-metrics', 'metrics listener off (no METRICS_PORT)', { METRICS_PORT: null }),
    without('no-limit', 'rate limit off (RATE_LIMIT_PER_SECOND=0)', { RATE_LIMIT_PER_SECOND: '0' }),
    { ...configured, name: 'env-token', note: 'a configured token (PLANT_STORE_TOKENS)' },
    {
      ...configured,
      name: 'all-off',
      note: 'all four off',
      env: { LOG_LEVEL: 'warn', METRICS_PORT: null, RATE_LIMIT_PER_SECOND: '0' },
    },
    peerCase('koa', 'stock Koa, every feature on (the target)'),
  ];
}

/**
 * The environment and bearer token of one run of `c` on the SQLite file `database`: a managed
 * token made with the build's CLI, or a random configured one.
 */
export function prepareCase(
  c: Case,
  database: string,
  port: number,
): { env: Record<string, string>; token: string } {
  const env: Record<string, string> = { ...COMMON_ENV, PORT: String(port), DATABASE_URL: database };
  for (const [key, value] of Object.entries(c.env)) {
    if (value === null) delete env[key];
    else env[key] = value;
  }
  if (c.cli === undefined) {
    const body = `pst_${randomBytes(32).toString('base64url')}`;
    const token = `${body}${tokenChecksum(body)}`;
    return { env: { ...env, PLANT_STORE_TOKENS: token }, token };
  }
  const token = execFileSync(process.execPath, [c.cli, 'tokens', 'create', '--name', 'bench'], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', DATABASE_URL: database },
    encoding: 'utf8',
  }).trim();
  return { env, token };
}
