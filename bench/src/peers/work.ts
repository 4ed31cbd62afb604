import { hash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { crc32 } from 'node:zlib';
import {
  ERROR_CATALOG,
  ERROR_ENTRIES,
  type ErrorName,
  formatIssues,
  JsonTooDeepError,
  NewPlant,
  parseJson,
  plantOf,
  RATE_LIMIT_HEADERS,
} from '@plant-store/schema';
import pino, { type DestinationStream, type Logger } from 'pino';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterRes,
  RateLimiterSQLite,
} from 'rate-limiter-flexible';
import { openLimitsFile, type PlantRow, SqliteGroupCommit } from './sqlite-commit.ts';

/** What every peer is built from; the same settings the server reads. */
export interface WorkOptions {
  readonly databaseFile: string;
  /** Accepted bearer tokens; only their SHA-256 digests are kept. */
  readonly tokens: readonly string[];
  readonly bodyLimitBytes: number;
  /** Requests per second per token, sustained; 0 turns the limit off. */
  readonly ratePerSecond: number;
  readonly burst: number;
  readonly logLevel: string;
  /** Where the request log goes (pino JSON lines). */
  readonly log: DestinationStream;
}

/** One request log line's fields (the server's). */
export interface RequestEntry {
  readonly requestId: string;
  readonly method: string;
  readonly route: string | null;
  readonly status: number;
  readonly durationMs: number;
  readonly consumer: string | null;
}

/** An answer in the Error shape: a catalog entry, a message and extra headers. */
export class PeerFailure extends Error {
  constructor(
    readonly kind: ErrorName,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export const JSON_TYPE = 'application/json; charset=utf-8';
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const MEDIA_TYPE = /^application\/json\s*(;|$)/i;
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The work every peer does, shared so the peers differ only in their HTTP layer: request id
 * and headers, the bearer check by SHA-256 digest, a per-token rate + burst limit
 * (rate-limiter-flexible's `RateLimiterSQLite` in the database's side file, as the server
 * counts on SQLite), the JSON media type, lossless parse + the schema's strict NewPlant,
 * the durable group commit, one pino request line at info, and the server's metrics (request
 * histogram, store timings, plants created, group-commit batches). Tokens are checked as the
 * server checks its managed tokens: shape and checksum, then by digest in a cache whose entries
 * expire.
 *
 * @example
 * const work = new PeerWork({ databaseFile, tokens, bodyLimitBytes: 65536, ratePerSecond: 0, burst: 1, logLevel: 'info', log: pino.destination(1) });
 */
export class PeerWork {
  readonly registry = new Registry();
  readonly bodyLimitBytes: number;
  readonly #store: SqliteGroupCommit;
  readonly #consumers = new Map<string, { name: string; expiresAt: number }>();
  readonly #limiter: BurstyRateLimiter | undefined;
  readonly #limits: ReturnType<typeof openLimitsFile> | undefined;
  readonly #ratePerSecond: number;
  readonly #logger: Logger;
  readonly #duration: Histogram<'method' | 'route' | 'status'>;
  readonly #created: Counter;
  readonly #createDuration: { observe(seconds: number): void };

  constructor(options: WorkOptions) {
    this.bodyLimitBytes = options.bodyLimitBytes;
    const registers = [this.registry];
    const batchSize = new Histogram({
      name: 'plant_store_group_commit_batch_size',
      help: 'Creates committed together in one transaction.',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
      registers,
    });
    const batchDuration = new Histogram({
      name: 'plant_store_group_commit_duration_seconds',
      help: 'Time one group-commit transaction took, by whether it committed.',
      labelNames: ['committed'],
      buckets: BUCKETS,
      registers,
    });
    this.#store = new SqliteGroupCommit(options.databaseFile, (size, seconds, committed) => {
      if (committed) batchSize.observe(size);
      batchDuration.observe({ committed: String(committed) }, seconds);
    });
    this.#created = new Counter({
      name: 'plant_store_plants_created_total',
      help: 'Plants newly stored.',
      registers,
    });
    this.#createDuration = new Histogram({
      name: 'plant_store_operation_duration_seconds',
      help: 'Store calls by operation and outcome.',
      labelNames: ['operation', 'outcome'],
      buckets: BUCKETS,
      registers,
    }).labels({ operation: 'create', outcome: 'created' });
    options.tokens.forEach((token, i) => {
      this.#consumers.set(hash('sha256', token, 'hex'), {
        name: `env#${i + 1}`,
        expiresAt: Number.POSITIVE_INFINITY,
      });
    });
    this.#ratePerSecond = options.ratePerSecond;
    if (options.ratePerSecond > 0) {
      const limits = openLimitsFile(`${options.databaseFile}-limits`);
      const limiter = (keyPrefix: string, points: number, duration: number) =>
        new RateLimiterSQLite({
          keyPrefix,
          tableName: keyPrefix,
          points,
          duration,
          storeClient: limits.client,
          storeType: 'better-sqlite3',
          inMemoryBlockOnConsumed: points,
          insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
        });
      this.#limits = limits;
      this.#limiter = new BurstyRateLimiter(
        limiter('rate', options.ratePerSecond, 1),
        limiter('burst', options.burst, 2),
      );
    }
    this.#logger = pino({ level: options.logLevel, base: { service: 'plant-store' } }, options.log);
    this.#duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to answering it, by method, route and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: BUCKETS,
      registers: [this.registry],
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** The caller's `X-Request-Id` when safe, else a new UUID. */
  requestId(given: string | string[] | undefined): string {
    return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
  }

  /** The headers every answer carries. */
  headers(requestId: string): Record<string, string> {
    return {
      'X-Request-Id': requestId,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
    };
  }

  /** The consumer's name for an accepted `Authorization` value; throws 401 otherwise. */
  authenticate(authorization: string | undefined): string {
    const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    const cached =
      token === undefined || !hasManagedShape(token)
        ? undefined
        : this.#consumers.get(hash('sha256', token, 'hex'));
    if (cached === undefined || cached.expiresAt <= Date.now())
      throw new PeerFailure('unauthorized', 'A valid bearer token is required');
    return cached.name;
  }

  /** Takes one request from the consumer's allowance: its `X-RateLimit-*` headers, or a 429. */
  async limit(consumer: string): Promise<Record<string, string>> {
    if (this.#limiter === undefined) return {};
    try {
      return this.#allowance(await this.#limiter.consume(consumer), 0);
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      const headers = this.#allowance(refused, 1);
      headers['Retry-After'] = String(Math.ceil(refused.msBeforeNext / 1000));
      throw new PeerFailure('rateLimited', 'Too many requests for this credential', headers);
    }
  }

  #allowance(res: RateLimiterRes, floor: number): Record<string, string> {
    return {
      [RATE_LIMIT_HEADERS.limit]: String(this.#ratePerSecond),
      [RATE_LIMIT_HEADERS.remaining]: String(Math.max(0, res.remainingPoints)),
      [RATE_LIMIT_HEADERS.reset]: String(Math.max(floor, Math.ceil(res.msBeforeNext / 1000))),
    };
  }

  /** Throws 415 unless the media type is `application/json`. */
  requireJson(contentType: string | undefined): void {
    if (contentType === undefined || !MEDIA_TYPE.test(contentType)) {
      throw new PeerFailure('unsupportedMediaType', 'The body must be application/json');
    }
  }

  /** The body's text as a NewPlant, ids exact; throws the 400s. */
  parse(text: string): PlantRow {
    if (text === '') throw new PeerFailure('missingBody', 'A NewPlant body is required');
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (error) {
      const kind = error instanceof JsonTooDeepError ? 'jsonTooDeep' : 'malformedJson';
      throw new PeerFailure(kind, `The body ${(error as Error).message}`);
    }
    const result = NewPlant.safeParse(value);
    if (!result.success)
      throw new PeerFailure('validationFailed', formatIssues(result.error.issues));
    return result.data;
  }

  /** Stores the plant durably; resolves with the Plant's JSON text, or throws 409. */
  async create(row: PlantRow): Promise<string> {
    const started = performance.now();
    const outcome = await this.#store.create(row);
    if (outcome === 'created') {
      this.#created.inc();
      this.#createDuration.observe((performance.now() - started) / 1000);
    }
    if (outcome === 'conflict') {
      throw new PeerFailure('conflict', `A plant with id ${row.id} already exists`);
    }
    return JSON.stringify(plantOf(row));
  }

  /** The status, headers and Error body for anything a step threw (HTTP errors by status). */
  failure(thrown: unknown): { status: number; headers: PeerFailure['headers']; body: string } {
    const { kind, message, headers } = thrown instanceof PeerFailure ? thrown : fromStatus(thrown);
    const { code, status } = ERROR_CATALOG[kind];
    return { status, headers, body: JSON.stringify({ error: code, message }) };
  }

  /** Observes the answered request and writes its log line. */
  finish(entry: RequestEntry): void {
    this.#duration.observe(
      { method: entry.method, route: entry.route ?? 'unmatched', status: entry.status },
      entry.durationMs / 1000,
    );
    this.#logger.info(entry, 'request');
  }

  /** Serves `GET /metrics` on its own listener. */
  metricsServer(): Server {
    return createServer((_req, res) => {
      this.registry.metrics().then((text) => {
        res.writeHead(200, { 'Content-Type': this.registry.contentType });
        res.end(text);
      });
    });
  }

  /** Commits what is queued and closes the store. */
  close(): void {
    this.#store.close();
    this.#limits?.close();
  }
}

/** A framework's HTTP error (`status` or `statusCode`) as a PeerFailure; anything else is a 500. */
function fromStatus(thrown: unknown): PeerFailure {
  const { status, statusCode } = (thrown ?? {}) as { status?: unknown; statusCode?: unknown };
  const kind = ERROR_ENTRIES.find((entry) => entry.status === Number(status ?? statusCode))?.name;
  return kind === undefined
    ? new PeerFailure('internal', 'The request failed')
    : new PeerFailure(kind, ERROR_CATALOG[kind].meaning);
}

const MANAGED_SHAPE = /^pst_[A-Za-z0-9_-]{43}[A-Za-z0-9_-]{6}$/;
const CHECKSUM_CHARS = 6;

/** The checksum the server's managed tokens end with: CRC-32 of the rest, base64url. */
export function tokenChecksum(text: string): string {
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc32(text), 0);
  return sum.toString('base64url');
}

/** Whether `token` has a managed token's shape and checksum (the server's first check). */
function hasManagedShape(token: string): boolean {
  if (!MANAGED_SHAPE.test(token)) return false;
  const split = token.length - CHECKSUM_CHARS;
  return tokenChecksum(token.slice(0, split)) === token.slice(split);
}
