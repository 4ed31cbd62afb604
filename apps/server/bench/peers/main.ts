import { createBareServer } from './bare-server.ts';
import { BearerDigests } from './bearer.ts';
import { createFastifyServer } from './fastify-server.ts';
import { createKoaServer } from './koa-server.ts';
import type { PeerOptions, PeerServer } from './peer.ts';
import { SqliteGroupCommit } from './sqlite-group-commit.ts';

// A benchmark peer as a process: `node --import tsx bench/peers/main.ts bare|fastify|koa`.
// It reads the variables the bench gives every server (HOST, PORT, DATABASE_URL as a SQLite
// file, PLANT_STORE_TOKENS), prints the same "listening on" line as the server, and on SIGTERM
// answers what is open, commits what is queued and exits 0. The body limit is the server's
// default, 64 KiB.
const PEERS: Record<string, (options: PeerOptions) => PeerServer> = {
  bare: createBareServer,
  fastify: createFastifyServer,
  koa: createKoaServer,
};

const name = process.argv[2] ?? '';
const create = PEERS[name];
if (create === undefined) throw new Error(`usage: main.ts ${Object.keys(PEERS).join('|')}`);
const databaseUrl = process.env.DATABASE_URL ?? '';
if (databaseUrl === '' || databaseUrl.includes('://')) {
  throw new Error(`DATABASE_URL must be a SQLite file for a peer, not ${databaseUrl}`);
}
const tokens = (process.env.PLANT_STORE_TOKENS ?? '').split(',').filter((token) => token !== '');
if (tokens.length === 0) throw new Error('PLANT_STORE_TOKENS is empty');

const commit = new SqliteGroupCommit(databaseUrl);
const server = create({ commit, bearer: new BearerDigests(tokens), bodyLimitBytes: 65_536 });
const url = await server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
console.log(`${name} peer is listening on ${url}`);
process.once('SIGTERM', () => {
  server.close().then(
    () => {
      commit.close();
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
