import type { Server } from 'node:http';
import pino from 'pino';
import { createBarePeer } from './bare.ts';
import { createFastifyPeer } from './fastify.ts';
import { createKoaPeer } from './koa.ts';
import { createMinimalKoaPeer } from './koa-minimal.ts';
import { PeerWork } from './work.ts';

// A peer as a process: `node --import tsx src/peers/main.ts koa|fastify|bare`, configured by the
// server's variables (HOST, PORT, DATABASE_URL as a SQLite file, PLANT_STORE_TOKENS, BODY_LIMIT
// in bytes, RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST, LOG_LEVEL, METRICS_PORT). The request log
// goes to stdout through pino's asynchronous destination, as the server's does.
const PEERS: Record<string, (work: PeerWork) => Server | Promise<Server>> = {
  koa: createKoaPeer,
  fastify: createFastifyPeer,
  bare: createBarePeer,
};

const name = process.argv[2] ?? '';
const env = process.env;
if (name === 'koa-minimal') {
  // No PeerWork: no limits, logs or metrics (koa-minimal.ts).
  const minimal = createMinimalKoaPeer({
    databaseFile: env.DATABASE_URL ?? './plants.db',
    tokens: (env.PLANT_STORE_TOKENS ?? '').split(',').filter((token) => token !== ''),
    bodyLimitBytes: Number(env.BODY_LIMIT ?? 65_536),
  });
  await new Promise<void>((resolve) =>
    minimal.server.listen(Number(env.PORT ?? 3000), env.HOST ?? '127.0.0.1', resolve),
  );
  process.once('SIGTERM', () => {
    minimal.server.close(() => {
      minimal.close();
      process.exit(0);
    });
    minimal.server.closeIdleConnections();
  });
} else {
  const create = PEERS[name];
  if (create === undefined)
    throw new Error(`usage: main.ts koa-minimal|${Object.keys(PEERS).join('|')}`);
  const log = pino.destination({ dest: 1, sync: false, minLength: 16_384, maxWrite: 65_536 });
  const work = new PeerWork({
    databaseFile: env.DATABASE_URL ?? './plants.db',
    tokens: (env.PLANT_STORE_TOKENS ?? '').split(',').filter((token) => token !== ''),
    bodyLimitBytes: Number(env.BODY_LIMIT ?? 65_536),
    ratePerSecond: Number(env.RATE_LIMIT_PER_SECOND ?? 100),
    burst: Number(env.RATE_LIMIT_BURST ?? 200),
    logLevel: env.LOG_LEVEL ?? 'info',
    log,
  });
  const server = await create(work);
  const listen = (target: Server, port: number) =>
    new Promise<void>((resolve) => target.listen(port, env.HOST ?? '127.0.0.1', resolve));
  await listen(server, Number(env.PORT ?? 3000));
  const metrics = env.METRICS_PORT === undefined ? undefined : work.metricsServer();
  if (metrics) await listen(metrics, Number(env.METRICS_PORT));
  process.once('SIGTERM', () => {
    metrics?.close();
    server.close(() => {
      work.close();
      log.flushSync();
      process.exit(0);
    });
    server.closeIdleConnections();
  });
}
