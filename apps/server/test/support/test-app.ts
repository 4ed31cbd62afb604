import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Koa from 'koa';
import inject, { type InjectOptions, type Response as InjectResponse } from 'light-my-request';
import type { Logger } from 'pino';
import { createApp } from '../../src/app.ts';
import { TokenRegistry } from '../../src/auth/token-registry.ts';
import { tokenStore } from '../../src/auth/token-store.ts';
import { DEFAULTS, parseDatabase, type RateLimitConfig } from '../../src/config.ts';
import type { Lifecycle } from '../../src/handlers.ts';
import type { AppState } from '../../src/http/app-state.ts';
import { markUnmetExpectation } from '../../src/http/protocol-checks.ts';
import { RateLimits } from '../../src/limits/rate-limits.ts';
import { databaseCounts } from '../../src/limits/shared-counts.ts';
import { ServiceMetrics } from '../../src/observability/metrics.ts';
import { openDatabaseHandle } from '../../src/store/database.ts';
import type { PlantStore } from '../../src/store/plant-store.ts';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { type PlantRow, readPlantRows } from './read-plant-rows.ts';
import { silentLogger } from './silent-logger.ts';

export interface TestAppOptions {
  /** Reuse a database file (to test persistence); by default a new one in a temporary folder. */
  readonly databaseFile?: string;
  readonly bodyLimitBytes?: number;
  readonly tokens?: readonly string[];
  /** Count requests and creates in a ServiceMetrics of the app's own: see `metrics`. */
  readonly metrics?: boolean;
  /** Apply these rate limits, counted in the app's database (none by default). */
  readonly rateLimit?: RateLimitConfig;
  readonly corsOrigins?: readonly string[];
  /** TRUST_PROXY: the proxies whose X-Forwarded-For is believed (injected requests come from 127.0.0.1). */
  readonly trustProxy?: readonly string[];
  /** Log here (e.g. a pino logger on a PassThrough) instead of nowhere. */
  readonly logger?: Logger;
}

export interface TestApp {
  /** The Koa application, as `startServer` builds it, never listening. */
  readonly app: Koa<AppState>;
  /** A bearer token the app accepts. */
  readonly token: string;
  /** The origin injected requests are made to (light-my-request's Host: `localhost:80`). */
  readonly origin: string;
  /** The SQLite file the app stores plants (and managed tokens, rate-limit counts) in. */
  readonly databaseFile: string;
  readonly store: PlantStore;
  /** The shutdown state the app reads (`draining`: /readyz 503; `closing`: Connection: close). */
  readonly lifecycle: Lifecycle;
  readonly metrics: ServiceMetrics | undefined;
  /** One request through `app.callback()`, with no socket (light-my-request). */
  inject(options: InjectOptions | string): Promise<InjectResponse>;
  /** `inject` with fetch's arguments and answer, for a path of the app (no host). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Every stored plant, read through a separate read-only connection, ordered by id. */
  rows(): PlantRow[];
  /** Closes the rate limits and the store, then deletes the temporary folder. */
  dispose(): Promise<void>;
}

/**
 * The real app (`createApp`) over a real SQLite store in a temporary folder (in memory in the
 * unit tier: vitest.config.ts), with a fresh random token and logging off; requests go through
 * `app.callback()` in this process: no port, no socket, no child process. Closed by `dispose`,
 * once however often it is called.
 *
 * @example
 * const app = await createTestApp();
 * const headers = { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' };
 * await app.fetch('/plants', { method: 'POST', headers, body: '{"id": 1, "name": "Fern"}' });
 * expect(app.rows()).toEqual([{ id: 1n, name: 'Fern' }]);
 * await app.dispose();
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-app-'));
  const databaseFile = options.databaseFile ?? join(folder, 'plants.db');
  const token = options.tokens?.[0] ?? `test-${randomBytes(24).toString('base64url')}`;
  const logger = options.logger ?? silentLogger();
  const opened: Array<() => unknown> = [() => rmSync(folder, { recursive: true, force: true })];
  const dispose = async () => {
    for (const close of opened.splice(0).reverse()) await close();
  };
  try {
    const handle = await openDatabaseHandle(parseDatabase(databaseFile), {
      durability: DEFAULTS.durability,
    });
    opened.push(() => handle.close());
    if (handle.kind !== 'sqlite') throw new Error('a SQLite location opened as PostgreSQL');
    const metrics = options.metrics ? new ServiceMetrics() : undefined;
    const store = createSqliteStore({
      filename: handle.filename,
      db: handle.db,
      ...(metrics ? { observer: metrics.storeObserver() } : {}),
    });
    opened.push(() => store.close());
    const rateLimits = options.rateLimit
      ? RateLimits.create(options.rateLimit, databaseCounts(handle), {
          ...(metrics ? { onLimited: (limit) => metrics.rateLimited.inc({ limit }) } : {}),
        })
      : undefined;
    if (rateLimits) opened.push(() => rateLimits.close());
    const tokens = new TokenRegistry(options.tokens ?? [token], tokenStore(handle));
    const lifecycle: Lifecycle = { draining: false, closing: false };
    const app = createApp({
      store,
      tokens,
      logger,
      lifecycle,
      bodyLimitBytes: options.bodyLimitBytes ?? DEFAULTS.bodyLimitBytes,
      metrics,
      rateLimits,
      corsOrigins: options.corsOrigins,
      trustProxy: options.trustProxy,
    });
    const dispatch = injectable(app.callback());
    const injectOne = (request: InjectOptions | string) => inject(dispatch, request);
    return {
      app,
      token,
      origin: INJECTED_ORIGIN,
      databaseFile,
      store,
      lifecycle,
      metrics,
      inject: injectOne,
      fetch: async (path, init = {}) => toFetchResponse(await injectOne(fromFetch(path, init))),
      rows: () => readPlantRows(databaseFile),
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/**
 * One request as Node hands the app a request whose `Expect` it found unmet (its
 * `checkExpectation` event, as `connection/http-server.ts` listens to it).
 */
export function injectUnmetExpectation(
  testApp: TestApp,
  options: InjectOptions,
): Promise<InjectResponse> {
  const callback = testApp.app.callback();
  return inject(
    injectable((req, res) => {
      markUnmetExpectation(req);
      return callback(req, res);
    }),
    options,
  );
}

/** light-my-request's default Host header, as an origin. */
const INJECTED_ORIGIN = 'http://localhost:80';

/**
 * `callback` with `req.complete` as Node's parser keeps it: true once the body has been read
 * (at once when there is none), which request-context.ts reads to keep or close a connection.
 */
function injectable(callback: (req: IncomingMessage, res: ServerResponse) => unknown) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const length = req.headers['content-length'];
    req.complete = req.headers['transfer-encoding'] === undefined && (!length || length === '0');
    req.once('end', () => {
      req.complete = true;
    });
    void callback(req, res);
  };
}

function fromFetch(path: string, init: RequestInit): InjectOptions {
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const { body } = init;
  if (
    body !== undefined &&
    body !== null &&
    typeof body !== 'string' &&
    !ArrayBuffer.isView(body)
  ) {
    throw new TypeError('createTestApp().fetch takes a string or bytes as the body');
  }
  return {
    url: path,
    method: init.method ?? 'GET',
    headers,
    ...(body ? { payload: Buffer.from(body as string | Uint8Array) } : {}),
  };
}

/** Status, headers and body as fetch would give them (no body for HEAD, 204 and 304). */
function toFetchResponse(answer: InjectResponse): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, String(one));
  }
  const bodyless =
    answer.raw.req.method === 'HEAD' || [101, 204, 205, 304].includes(answer.statusCode);
  return new Response(bodyless ? null : answer.rawPayload, {
    status: answer.statusCode,
    statusText: answer.statusMessage,
    headers,
  });
}
