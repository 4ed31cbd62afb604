import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.ts';
import { TokenRegistry } from '../src/auth/token-registry.ts';
import { RateLimits } from '../src/limits/rate-limits.ts';
import { createLogger } from '../src/observability/logger.ts';
import { ServiceMetrics } from '../src/observability/metrics.ts';
import { measureStore } from '../src/observability/store-timing.ts';
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { benchId } from './ids.ts';
import { median } from './stats.ts';

// The app's own CPU per request with no sockets and no load generator in the way: the real
// app (createApp as server.ts builds it: managed-token-capable registry, rate limit on,
// metrics on, request log at info to stdout as deployed, SQLite FULL with group commit and the
// background checkpointer) driven in this process by light-my-request, `--concurrency`
// requests at a time. Prints process CPU (all threads) per request for each round. To compare
// two versions of src/, run it on each (e.g. after `git stash`), alternating.
//   node --import tsx bench/inject-cpu.ts --requests 20000 --rounds 5 >/dev/null
const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '50' },
  },
});
// light-my-request (Fastify's inject, a bench-only devDependency through fastify) drives the
// Node request listener with in-memory request and response objects.
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
type Inject = (
  dispatch: (req: IncomingMessage, res: ServerResponse) => void,
  options: {
    method: string;
    url: string;
    remoteAddress: string;
    headers: Record<string, string>;
    payload: string;
  },
) => Promise<{ statusCode: number; body: string }>;
const inject = fromFastify('light-my-request') as Inject;
const requests = Number(args.requests);
const concurrency = Number(args.concurrency);
const folder = mkdtempSync(join(tmpdir(), 'plant-store-inject-'));
const token = 'inject-bench-token-0123456789abcdef';
const metrics = new ServiceMetrics();
const store = measureStore(
  createSqliteStore({
    filename: join(folder, 'plants.db'),
    durability: 'full',
    checkpoints: 'background',
    observer: metrics.storeObserver(),
  }),
  metrics,
);
// As deployed: JSON lines gathered in 16 KiB chunks and written to stdout (run with
// `>/dev/null`); the results go to stderr.
const logger = createLogger('info');
const rateLimits = await RateLimits.create({
  perSecond: 1_000_000_000,
  burst: 1_000_000_000,
  authFailuresPerMinute: 30,
});
const app = createApp({
  store,
  tokens: TokenRegistry.fromTokens([token]),
  bodyLimitBytes: 65536,
  logger,
  metrics,
  rateLimits,
});
const dispatch = app.callback();
let next = 0;
const one = async () => {
  const n = next++;
  const tag = n % 3 === 0 ? '' : `,"tag":"bench-${n % 5}"`;
  const response = await inject(dispatch, {
    method: 'POST',
    url: '/plants',
    remoteAddress: '127.0.0.1',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: `{"id":${benchId(n)},"name":"Bench plant ${n}"${tag}}`,
  });
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
};
const run = async (count: number) => {
  let left = count;
  const worker = async () => {
    while (left > 0) {
      left -= 1;
      await one();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
};
await run(Math.min(requests, 5000)); // warm-up: JIT, caches
const perRequest: number[] = [];
for (let round = 0; round < Number(args.rounds); round++) {
  const before = process.cpuUsage();
  await run(requests);
  const used = process.cpuUsage(before);
  perRequest.push((used.user + used.system) / requests);
  process.stderr.write(`round ${round + 1}: ${perRequest.at(-1)?.toFixed(1)} µs CPU/req\n`);
}
process.stderr.write(`median ${median(perRequest).toFixed(1)} µs CPU/req (process, all threads)\n`);
await store.close();
await rateLimits.close();
rmSync(folder, { recursive: true, force: true });
process.exit(0);
