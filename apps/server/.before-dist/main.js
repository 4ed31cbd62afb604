import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);
import {
  ManagedTokenVerifier,
  TokenRegistry,
  tokenStatus,
  tokenStore
} from "./chunk-PTFVJRFG.js";
import {
  BatchedStore,
  ERROR_CATALOG,
  ERROR_MESSAGES,
  JsonTooDeepError,
  JsonTooWideError,
  MalformedJsonError,
  NEW_PLANT_JSON_LIMITS,
  RATE_LIMIT_HEADERS,
  RESPONSE_MEDIA_TYPES,
  contract,
  formatIssues,
  parseJson,
  toPlant
} from "./chunk-UVURL2WZ.js";
import {
  ConfigError,
  DatabaseFileGoneError,
  NO_CREDENTIAL_MESSAGE,
  StartupError,
  StoreUnavailableError,
  describeSqliteFailure,
  loadConfig,
  looseDirectoryWarning,
  makePrivateDirectory,
  openDatabase,
  openDatabaseHandle,
  outcomeAgainst,
  schemaVersion,
  sqliteCode,
  translateSqliteError
} from "./chunk-ED44OKCU.js";

// src/main.ts
import cluster3 from "cluster";
import { dirname as dirname3 } from "path";

// src/auth/development-token.ts
import { randomBytes } from "crypto";
import { chmod, readFile, writeFile } from "fs/promises";
import { dirname, join } from "path";
function developmentTokenPath(location) {
  return join(location.kind === "sqlite" ? dirname(location.filename) : "data", "dev-token");
}
var FILE_SYSTEM_REASONS = {
  ENOENT: "it does not exist and cannot be made",
  ENOTDIR: "a part of its path is a file, not a directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "the file system is read-only",
  ENOSPC: "the disk is full",
  EISDIR: "dev-token in it is a directory"
};
async function loadDevelopmentToken(file) {
  try {
    return await readOrMake(file);
  } catch (error) {
    if (error instanceof StartupError) throw error;
    const code = error.code ?? "";
    const why = FILE_SYSTEM_REASONS[code] ?? (error instanceof Error ? error.message : String(error));
    throw new StartupError(
      `cannot use the data directory ${dirname(file)} (of DATABASE_URL; the development token is kept there): ${why}; set DATABASE_URL to a file in a directory this user can write, or set PLANT_STORE_TOKENS`,
      { cause: error }
    );
  }
}
async function readOrMake(file) {
  const text = await readFile(file, "utf8").catch((error) => {
    if (error.code === "ENOENT") return void 0;
    throw error;
  });
  if (text !== void 0) {
    const token2 = text.trim();
    if (!/^[A-Za-z0-9_-]{43}$/.test(token2)) {
      throw new ConfigError(
        `Invalid development token file ${file}: it does not hold a token; delete it to get a new one`
      );
    }
    await chmod(file, 384);
    return { token: token2, file, created: false };
  }
  makePrivateDirectory(dirname(file));
  const token = randomBytes(32).toString("base64url");
  try {
    await writeFile(file, `${token}
`, { mode: 384, flag: "wx" });
  } catch (error) {
    if (error.code === "EEXIST") return readOrMake(file);
    throw error;
  }
  return { token, file, created: true };
}

// src/cluster.ts
import cluster from "cluster";
import { createServer as createServer2 } from "net";

// src/connection/drain.ts
import { Server as NetServer } from "net";

// src/http/api-error.ts
var ApiError = class extends Error {
  constructor(kind, message, headers = {}) {
    const { stackTraceLimit } = Error;
    Error.stackTraceLimit = 0;
    super(message);
    this.kind = kind;
    this.headers = headers;
    Error.stackTraceLimit = stackTraceLimit;
    this.status = ERROR_CATALOG[kind].status;
    this.code = ERROR_CATALOG[kind].code;
  }
  kind;
  headers;
  name = "ApiError";
  status;
  code;
  toBody() {
    return { error: this.code, message: this.message };
  }
};

// src/http/error-responder.ts
import { STATUS_CODES } from "http";

// src/http/to-api-error.ts
var STORE_RETRY_AFTER_SECONDS = 1;
function toApiError(error) {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) {
    return new ApiError("storeUnavailable", ERROR_MESSAGES.storeUnavailable.unreachable, {
      "Retry-After": String(STORE_RETRY_AFTER_SECONDS)
    });
  }
  const { status, type, limit, code } = error ?? {};
  if (type === "entity.too.large" || status === 413) {
    return new ApiError(
      "payloadTooLarge",
      ERROR_MESSAGES.payloadTooLarge(typeof limit === "number" ? limit : void 0)
    );
  }
  if (type === "encoding.unsupported" || type === "charset.unsupported" || status === 415) {
    return new ApiError("unsupportedMediaType", ERROR_MESSAGES.unsupportedMediaType.coding);
  }
  if (typeof code === "string" && (code.startsWith("Z_") || code.startsWith("ERR__ERROR_"))) {
    return new ApiError("malformedJson", ERROR_MESSAGES.malformedJson.undecodable);
  }
  if (type === "request.aborted" || type === "request.size.invalid") {
    return new ApiError("malformedJson", ERROR_MESSAGES.malformedJson.cutShort);
  }
  return new ApiError("internal", ERROR_MESSAGES.internal);
}

// src/http/error-responder.ts
var MAX_ERROR_BODY_BYTES = 1024;
function errorBodyJson(error) {
  const body = error.toBody();
  const json = JSON.stringify(body);
  if (Buffer.byteLength(json) <= MAX_ERROR_BODY_BYTES) return json;
  let room = MAX_ERROR_BODY_BYTES - Buffer.byteLength(JSON.stringify({ ...body, message: "\u2026" }));
  let kept = "";
  for (const char of body.message) {
    room -= Buffer.byteLength(JSON.stringify(char)) - 2;
    if (room < 0) break;
    kept += char;
  }
  return JSON.stringify({ ...body, message: `${kept}\u2026` });
}
function rawErrorAnswer(error, headers = {}) {
  const body = errorBodyJson(error);
  const lines = [`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ""}`];
  const fields = {};
  for (const [name, value] of Object.entries({ ...headers, ...error.headers })) {
    fields[name.toLowerCase()] = value;
  }
  Object.assign(fields, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    connection: "close"
  });
  for (const [name, value] of Object.entries(fields)) {
    if (value !== void 0)
      lines.push(`${name}: ${Array.isArray(value) ? value.join(", ") : value}`);
  }
  return `${lines.join("\r\n")}\r
\r
${body}`;
}
function writeErrorAnswer(response, error) {
  const body = errorBodyJson(error);
  response.writeHead(error.status, {
    ...error.headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store"
  });
  response.end(body);
}
var rawRefusals = /* @__PURE__ */ new WeakMap();
function rawRefusalOf(response) {
  return rawRefusals.get(response);
}
function answerError(ctx, thrown, logger) {
  const error = toApiError(thrown);
  if (error.kind === "internal") {
    logger.error({ err: thrown, requestId: ctx.state.requestId }, "request failed");
  }
  ctx.status = error.status;
  ctx.set(error.headers);
  ctx.type = "application/json";
  ctx.body = errorBodyJson(error);
  if (ctx.req.complete && error.kind !== "malformedRequest") return;
  ctx.set("Connection", "close");
  if (ctx.res.socket === null || ctx.method === "HEAD") return;
  ctx.respond = false;
  rawRefusals.set(ctx.res, rawErrorAnswer(error, ctx.res.getHeaders()));
}

// src/connection/drain.ts
var READINESS_PATH = contract.getReadiness.path;
var PROBE_PATHS = /* @__PURE__ */ new Set([contract.getHealth.path, READINESS_PATH]);
var SHUTDOWN_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"];
var SHUTDOWN_GRACE_MS = 8e3;
var SWEEP_MS = 50;
function drainOnShutdown(server, connections, options = {}) {
  const idleGraceMs = options.idleGraceMs ?? 1e3;
  let draining = false;
  let closing = false;
  const idle = /* @__PURE__ */ new WeakMap();
  const closeLongIdle = () => {
    const now = performance.now();
    for (const socket of connections.open) {
      if (socket.bytesRead === 0) continue;
      const seen = idle.get(socket);
      const busy = connections.answering(socket).size > 0;
      if (busy || seen === void 0 || seen.bytesRead !== socket.bytesRead) {
        idle.set(socket, { since: now, bytesRead: socket.bytesRead });
      } else if (now - seen.since >= idleGraceMs) socket.destroy();
    }
  };
  let stopped;
  const shutdown = async () => {
    draining = true;
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    const force = setTimeout(() => {
      for (const socket of connections.open) socket.destroy();
    }, SHUTDOWN_GRACE_MS);
    if (server.listening) NetServer.prototype.close.call(server);
    await options.othersStopped?.();
    closing = true;
    for (const socket of connections.open) {
      for (const response of connections.answering(socket)) {
        if (!response.headersSent) response.setHeader("Connection", "close");
      }
    }
    closeLongIdle();
    const sweep = setInterval(closeLongIdle, SWEEP_MS);
    await connections.allClosed();
    clearInterval(sweep);
    clearTimeout(force);
  };
  return {
    answers(request, response) {
      if (closing || PROBE_PATHS.has(request.url ?? "")) response.setHeader("Connection", "close");
      if (!draining || request.url !== READINESS_PATH) return false;
      const error = new ApiError("storeUnavailable", ERROR_MESSAGES.storeUnavailable.shuttingDown, {
        "Retry-After": String(STORE_RETRY_AFTER_SECONDS)
      });
      writeErrorAnswer(response, error);
      return true;
    },
    shutdown() {
      stopped ??= shutdown();
      return stopped;
    }
  };
}

// src/listen.ts
async function listenOn(server, port, host) {
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port: bound, address, family } = server.address();
  return `http://${family === "IPv6" ? `[${address}]` : address}:${bound}`;
}

// src/observability/metrics-listener.ts
import { createServer } from "http";
async function startMetricsServer(metrics, address, logger, serverOptions) {
  const server = createServer(serverOptions, (request, response) => {
    response.setHeader("Cache-Control", "no-store");
    response.setHeader("X-Content-Type-Options", "nosniff");
    const plain = (status, text, headers = {}) => {
      response.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", ...headers });
      response.end(text);
    };
    if ((request.url ?? "").split("?")[0] !== "/metrics") {
      return plain(404, "Not found: metrics are at /metrics\n");
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return plain(405, "Method not allowed\n", { Allow: "GET, HEAD" });
    }
    metrics.exposition().then(
      ({ contentType, body }) => {
        response.writeHead(200, { "Content-Type": contentType });
        response.end(request.method === "HEAD" ? void 0 : body);
      },
      (error) => {
        logger.error({ err: error }, "metrics collection failed");
        plain(500, "Metrics collection failed\n");
      }
    );
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  const url = await listenOn(server, address.port, address.host);
  return {
    url,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    })
  };
}

// src/cluster.ts
var SHUTDOWN_MESSAGE = "plant-store:shutdown";
var STOPPED_ACCEPTING = "plant-store:stopped-accepting";
var ALL_STOPPED_ACCEPTING = "plant-store:all-stopped-accepting";
function allWorkersStoppedAccepting() {
  return new Promise((resolve) => {
    const listener = (message) => {
      if (message !== ALL_STOPPED_ACCEPTING) return;
      process.off("message", listener);
      resolve();
    };
    process.on("message", listener);
    process.send?.(STOPPED_ACCEPTING);
  });
}
var RESTART_DELAY_MS = 250;
var MAX_RESTART_DELAY_MS = 3e4;
var STOP_TIMEOUT_MS = 3e4;
async function runPrimary(options) {
  const { logger } = options;
  const probe = createServer2();
  await listenOn(probe, options.port, options.host);
  await new Promise((resolve) => probe.close(resolve));
  let metrics;
  if (options.metrics) {
    const { clusterMetrics } = await import("./cluster-metrics-4QYXQ4GL.js");
    const allWorkers = clusterMetrics();
    metrics = await startMetricsServer(allWorkers, options.metrics, logger, options.serverOptions);
    logger.info({ metrics: `${metrics.url}/metrics` }, "metrics of all workers");
  }
  let stopping = false;
  let failed = false;
  let started = false;
  let deathsInARow = 0;
  const listening = /* @__PURE__ */ new Set();
  const live = /* @__PURE__ */ new Set();
  const fork = () => live.add(cluster.fork());
  let stopped = () => void 0;
  const done = new Promise((resolve) => {
    stopped = resolve;
  });
  const stop = (signal) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down the workers");
    for (const worker of live) worker.send(SHUTDOWN_MESSAGE, () => void 0);
    setTimeout(() => {
      logger.error("workers did not stop in time: killing them");
      failed = true;
      for (const worker of live) worker.process.kill("SIGKILL");
    }, STOP_TIMEOUT_MS).unref();
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, stop);
  const stoppedAccepting = /* @__PURE__ */ new Set();
  const allStopped = () => {
    if (stopping && [...live].every((worker) => stoppedAccepting.has(worker))) {
      for (const worker of live) worker.send(ALL_STOPPED_ACCEPTING, () => void 0);
    }
  };
  cluster.on("message", (worker, message) => {
    if (message !== STOPPED_ACCEPTING) return;
    stoppedAccepting.add(worker);
    allStopped();
  });
  cluster.on("listening", (worker, address) => {
    listening.add(worker.id);
    if (started || listening.size < options.workers) return;
    started = true;
    logger.info({ workers: options.workers }, "all workers serving");
    const host = address.addressType === 6 ? `[${address.address}]` : address.address;
    options.onListening(`http://${host}:${address.port}`);
  });
  cluster.on("exit", (worker, code, signal) => {
    live.delete(worker);
    const served = listening.delete(worker.id);
    if (!stopping) {
      logger.error({ worker: worker.process.pid, code, signal }, "worker exited unexpectedly");
      if (started) {
        deathsInARow = served ? 0 : deathsInARow + 1;
        const delayMs = Math.min(RESTART_DELAY_MS * 2 ** deathsInARow, MAX_RESTART_DELAY_MS);
        logger.warn({ delayMs }, "replacing the worker");
        return void setTimeout(() => stopping || fork(), delayMs);
      }
      logger.error("a worker failed to start: stopping");
      failed = true;
      stop("SIGTERM");
    }
    if (code !== 0) failed = true;
    if (live.size === 0) stopped();
    allStopped();
  });
  for (let i = 0; i < options.workers; i += 1) fork();
  await done;
  await metrics?.close().catch(() => void 0);
  logger.info({ failed }, "all workers stopped");
  return failed ? 1 : 0;
}

// src/connection/http-server.ts
import { createServer as createServer3 } from "http";

// src/connection/fair-share.ts
var MAX_PIPELINED = 16;
var NONE = /* @__PURE__ */ new Set();
function trackConnections(server, cap = { max: 0 }) {
  const open = /* @__PURE__ */ new Set();
  const byAddress = /* @__PURE__ */ new Map();
  const answering = /* @__PURE__ */ new WeakMap();
  const share = Math.ceil(cap.max / 2);
  let emptied;
  let reached = false;
  const idle = (socket) => (answering.get(socket)?.size ?? 0) === 0;
  const answersOf = (socket) => {
    const answers = /* @__PURE__ */ new Set();
    answering.set(socket, answers);
    return answers;
  };
  const evictFrom = (address, newcomer) => {
    const own = byAddress.get(address) ?? /* @__PURE__ */ new Set();
    for (const socket of own) {
      if (socket !== newcomer && idle(socket)) return socket.destroy();
    }
    if (own.has(newcomer)) return newcomer.destroy();
    own.values().next().value?.destroy();
  };
  const heaviest = (newcomer) => {
    let most = newcomer;
    for (const [address, { size }] of byAddress) {
      const count = byAddress.get(most)?.size ?? 0;
      if (address !== newcomer && (size > count || most === newcomer && size === count)) {
        most = address;
      }
    }
    return most;
  };
  server.on("connection", (socket) => {
    const address = socket.remoteAddress ?? "";
    const own = byAddress.get(address) ?? /* @__PURE__ */ new Set();
    byAddress.set(address, own);
    own.add(socket);
    open.add(socket);
    socket.once("close", () => {
      open.delete(socket);
      own.delete(socket);
      if (own.size === 0 && byAddress.get(address) === own) byAddress.delete(address);
      if (open.size === 0) emptied?.();
    });
    if (cap.max <= 0) return;
    if (own.size > share && !cap.exempt?.(address)) evictFrom(address, socket);
    else if (open.size > cap.max) {
      if (!reached) cap.onReached?.();
      reached = true;
      evictFrom(heaviest(address), socket);
    }
  });
  server.on("request", (request, response) => {
    const socket = request.socket;
    if (socket.destroyed) return void request.destroy();
    const answers = answering.get(socket) ?? answersOf(socket);
    answers.add(response);
    response.on("close", () => answers.delete(response));
    if (answers.size > MAX_PIPELINED) socket.destroy();
  });
  return {
    open,
    answering: (socket) => answering.get(socket) ?? NONE,
    allClosed: () => new Promise((resolve) => {
      emptied = resolve;
      if (open.size === 0) resolve();
    })
  };
}

// src/connection/linger.ts
var LINGER_MAX_BYTES = 16 * 1024 * 1024;
var LINGER_MAX_SMALL_READS = 8;
function answerAndLinger(socket, answer, lingerMs, announcedLength) {
  const close = () => void socket.destroy();
  socket.on("error", close);
  if (!socket.writable) {
    close();
    return;
  }
  socket.end(answer);
  if (lingerMs <= 0 || Number(announcedLength ?? 0) > LINGER_MAX_BYTES) {
    socket.once("finish", close);
    return;
  }
  const timer = setTimeout(close, lingerMs);
  socket.once("close", () => clearTimeout(timer));
  socket.once("resume", () => {
    for (const listener of socket.listeners("data")) {
      socket.removeListener("data", listener);
    }
    let smallReads = 0;
    let bytes = 0;
    socket.on("data", (chunk) => {
      if (chunk.length < 1024) smallReads += 1;
      bytes += chunk.length;
      if (smallReads > LINGER_MAX_SMALL_READS || bytes > LINGER_MAX_BYTES) close();
    });
    socket.once("end", close);
  });
  setImmediate(() => {
    socket.pause();
    socket.resume();
  });
}

// src/connection/parser-errors.ts
function answerParserErrors(server, connections, lingerMs) {
  const answered = /* @__PURE__ */ new WeakSet();
  server.on("clientError", (error, socket) => {
    if (answered.has(socket)) return;
    const timedOut = error.code === "ERR_HTTP_REQUEST_TIMEOUT";
    const last = [...connections.answering(socket)].at(-1);
    const waiting = last !== void 0 && !last.req.complete && !last.headersSent;
    if (!socket.writable || !(waiting || error.code?.startsWith("HPE_"))) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    const refusal = timedOut ? new ApiError("requestTimeout", ERROR_MESSAGES.requestTimeout(server.requestTimeout / 1e3)) : new ApiError(
      "malformedRequest",
      error.code === "HPE_HEADER_OVERFLOW" ? ERROR_MESSAGES.malformedRequest.headersTooLarge : ERROR_MESSAGES.malformedRequest.unparsable
    );
    const answer = () => answerAndLinger(socket, rawErrorAnswer(refusal, last?.getHeaders()), lingerMs);
    if (last === void 0 || waiting) {
      if (last) socket.once("close", () => last.req.destroy());
      answer();
      return;
    }
    last.once("finish", answer);
    last.once("close", () => {
      if (!last.writableFinished) socket.destroy();
    });
  });
  server.on("connect", (request, socket) => {
    const refusal = new ApiError(
      "methodNotAllowed",
      `CONNECT is not allowed: this server is not a proxy (asked for ${request.url ?? ""})`
    );
    socket.on("error", () => socket.destroy());
    socket.end(rawErrorAnswer(refusal));
  });
}

// src/connection/http-server.ts
var DEFAULT_HTTP_TIMEOUTS = {
  headersTimeoutMs: 5e3,
  // headers complete after the request's first byte (slowloris)
  requestTimeoutMs: 3e4,
  // the whole request, body included
  progressTimeoutMs: 3e4,
  // no progress either way closes it (nginx's `send_timeout`)
  keepAliveTimeoutMs: 65e3,
  // above a balancer's idle timeout (60 s)
  connectionsCheckingIntervalMs: 1e3,
  lingerMs: 5e3
  // how long the rest of a refused body is read and dropped (linger.ts)
};
function httpServerOptions(timeouts = {}) {
  const merged = { ...DEFAULT_HTTP_TIMEOUTS, ...timeouts };
  return {
    headersTimeout: merged.headersTimeoutMs,
    requestTimeout: merged.requestTimeoutMs,
    keepAliveTimeout: merged.keepAliveTimeoutMs,
    connectionsCheckingInterval: merged.connectionsCheckingIntervalMs
  };
}
function createHttpServer(handle, options = {}) {
  const timeouts = { ...DEFAULT_HTTP_TIMEOUTS, ...options.timeouts };
  const server = createServer3({ ...httpServerOptions(timeouts), requireHostHeader: false });
  server.maxHeadersCount = 0;
  server.timeout = timeouts.progressTimeoutMs;
  const connections = trackConnections(server, options.cap);
  answerParserErrors(server, connections, timeouts.lingerMs);
  server.on("checkContinue", (request, response) => {
    request.once("resume", () => response.headersSent || response.writeContinue());
    server.emit("request", request, response);
  });
  server.on("checkExpectation", (request, response) => server.emit("request", request, response));
  const drain = drainOnShutdown(server, connections, options.drain);
  server.on("request", (request, response) => {
    if (request.socket.destroyed || drain.answers(request, response)) return;
    void Promise.resolve(handle(request, response)).then(() => {
      const refusal = rawRefusalOf(response);
      if (refusal !== void 0) {
        answerAndLinger(
          request.socket,
          refusal,
          timeouts.lingerMs,
          request.headers["content-length"]
        );
      }
    });
  });
  return { server, drain };
}

// src/observability/logger.ts
import { write } from "fs";
import { createRequire } from "module";
import { setTimeout as sleep } from "timers/promises";
import pino from "pino";

// src/observability/line-buffer.ts
import { EventEmitter } from "events";
import { writeSync } from "fs";
var RETRY_MS = 100;
var EXIT_WAIT_MS = 1e3;
var PAUSE = new Int32Array(new SharedArrayBuffer(4));
var LineBuffer = class extends EventEmitter {
  constructor(fd, limits = { minLength: 16384, maxLength: 8 * 1024 * 1024, flushMs: 1e3 }) {
    super();
    this.fd = fd;
    this.limits = limits;
    this.#timer = setInterval(() => this.#writeWaiting(), limits.flushMs).unref();
    process.once("exit", this.#atExit);
  }
  fd;
  limits;
  #lines = [];
  #waiting = 0;
  /** Bytes a full pipe has not taken yet. */
  #unwritten;
  #retry;
  #ended = false;
  #flushed = [];
  #timer;
  /** At exit a full pipe is waited for, up to EXIT_WAIT_MS: the process has nothing else to do. */
  #atExit = () => this.#writeWaiting(Date.now() + EXIT_WAIT_MS);
  write(line) {
    if (this.#ended || this.#waiting + line.length > this.limits.maxLength) return false;
    this.#lines.push(line);
    this.#waiting += line.length;
    if (this.#waiting >= this.limits.minLength) this.#writeWaiting();
    return true;
  }
  /** Calls back once every line so far is written (or the writing ended). */
  flush(callback = () => void 0) {
    this.#flushed.push(callback);
    this.#writeWaiting();
  }
  /** Stops writing; what waits is dropped, and waiting flushes are called back. */
  destroy() {
    this.#end();
  }
  #writeWaiting(waitUntil = 0) {
    while (!this.#ended) {
      if (this.#unwritten === void 0 && this.#lines.length > 0) {
        this.#unwritten = Buffer.from(this.#lines.join(""));
        this.#lines = [];
        this.#waiting = 0;
      }
      if (this.#unwritten === void 0) break;
      let written;
      try {
        written = writeSync(this.fd, this.#unwritten);
      } catch (error) {
        if (error.code !== "EAGAIN") {
          this.#end();
          this.emit("error", error);
        } else if (Date.now() < waitUntil) {
          Atomics.wait(PAUSE, 0, 0, 5);
          continue;
        } else {
          this.#retry ??= setTimeout(() => {
            this.#retry = void 0;
            this.#writeWaiting();
          }, RETRY_MS).unref();
        }
        return;
      }
      this.#unwritten = written < this.#unwritten.length ? this.#unwritten.subarray(written) : void 0;
    }
    for (const callback of this.#flushed.splice(0)) callback();
  }
  #end() {
    this.#ended = true;
    this.#lines = [];
    this.#unwritten = void 0;
    clearInterval(this.#timer);
    clearTimeout(this.#retry);
    process.off("exit", this.#atExit);
    for (const callback of this.#flushed.splice(0)) callback();
  }
};

// src/observability/logger.ts
var require2 = createRequire(import.meta.url);
function createLogger(level, options = {}) {
  const settings = {
    level,
    base: { service: "plant-store" },
    redact: ["req.headers.authorization", "headers.authorization", "authorization", "token"]
  };
  if (options.pretty) {
    const pretty = require2("pino-pretty");
    return pino(
      settings,
      pretty({
        colorize: options.destination === void 0,
        translateTime: "SYS:HH:MM:ss.l",
        ignore: "pid,hostname,service",
        sync: true,
        ...options.destination ? { destination: options.destination } : {}
      })
    );
  }
  if (options.destination) return pino(settings, options.destination);
  const destination = new LineBuffer(1);
  void process.stdout.isTTY;
  void process.stderr.isTTY;
  destination.on("error", (error) => {
    const line = `${JSON.stringify({ level: 50, time: Date.now(), pid: process.pid, service: "plant-store", msg: `stdout failed (${error.code ?? error.message}): log lines are no longer written there` })}
`;
    write(2, line, () => void 0);
  });
  stdout = destination;
  return pino(settings, destination);
}
var EXIT_FLUSH_MS = 1e3;
var stdout;
async function exitAfterLogs(logger, code) {
  const flushed = new Promise(
    (resolve) => stdout ? stdout.flush(resolve) : logger.flush(() => resolve())
  );
  await Promise.race([flushed, sleep(EXIT_FLUSH_MS)]);
  stdout?.destroy();
  process.exit(code);
}
function wantsPrettyLogs(production, stdoutIsTty) {
  return !production && stdoutIsTty === true;
}

// src/server.ts
import cluster2 from "cluster";
import { existsSync as existsSync3 } from "fs";

// src/app.ts
import Koa from "koa";

// src/docs/serve-docs-assets.ts
import { existsSync as existsSync2, readFileSync as readFileSync2 } from "fs";
import { join as join3 } from "path";

// src/http/page-security-headers.ts
var PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ");
var PAGE_SECURITY_HEADERS = {
  "Content-Security-Policy": PAGE_CONTENT_SECURITY_POLICY,
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin"
};

// src/docs/docs-assets.ts
import { existsSync, readFileSync } from "fs";
import { join as join2 } from "path";
import { fileURLToPath } from "url";
var DOCS_ASSET_FILES = {
  page: "docs.html",
  script: "api-reference.js",
  document: "openapi.json"
};
var ENCODED_SUFFIXES = [".br", ".gz"];
var MANIFEST_FILE = "manifest.json";
var SOURCE_ASSETS_FOLDER = fileURLToPath(
  new URL("../../node_modules/.cache/docs-assets/", import.meta.url)
);
function docsAssetsFolder() {
  const built = fileURLToPath(new URL("./assets/", import.meta.url));
  return existsSync(join2(built, MANIFEST_FILE)) ? built : SOURCE_ASSETS_FOLDER;
}
function readDocsManifest(folder) {
  let parsed;
  try {
    parsed = JSON.parse(readFileSync(join2(folder, MANIFEST_FILE), "utf8"));
  } catch {
    return void 0;
  }
  const hashes = parsed?.hashes;
  const complete = Object.keys(DOCS_ASSET_FILES).every(
    (asset) => typeof hashes?.[asset] === "string"
  );
  return complete ? parsed : void 0;
}

// src/docs/serve-docs-assets.ts
var IMMUTABLE_CACHE = "public, max-age=31536000, immutable";
var REVALIDATE_CACHE = "public, no-cache";
var ROUTE_ASSETS = {
  getDocs: "page",
  getDocsScript: "script",
  getOpenApiDocument: "document"
};
var DocsAssetsMissingError = class extends StartupError {
  name = "DocsAssetsMissingError";
};
function serveDocsAssets(folder = docsAssetsFolder()) {
  const manifest = readDocsManifest(folder);
  const missing = Object.values(DOCS_ASSET_FILES).flatMap((file) => [file, ...ENCODED_SUFFIXES.map((suffix) => `${file}${suffix}`)]).filter((file) => !existsSync2(join3(folder, file)));
  if (manifest === void 0 || missing.length > 0) {
    throw new DocsAssetsMissingError(
      `the API reference files are not built in ${folder} (missing: ${manifest === void 0 ? "manifest.json " : ""}${missing.join(" ")}): run \`pnpm --filter @plant-store/server build:assets\`, or build the server`
    );
  }
  const serve = (route) => {
    const asset = ROUTE_ASSETS[route];
    const file = join3(folder, DOCS_ASSET_FILES[asset]);
    const copies = { br: readFileSync2(`${file}.br`), gzip: readFileSync2(`${file}.gz`) };
    const identity = readFileSync2(file);
    const hash2 = manifest.hashes[asset];
    const { responseType = "json" } = contract[route];
    const cacheControl = (ctx) => asset === "script" && ctx.query.v === hash2 ? IMMUTABLE_CACHE : REVALIDATE_CACHE;
    return async function sendDocsAsset(ctx) {
      ctx.status = 200;
      ctx.response.etag = `W/"${hash2}"`;
      ctx.set("Cache-Control", cacheControl(ctx));
      if (responseType === "html") ctx.set(PAGE_SECURITY_HEADERS);
      ctx.vary("Accept-Encoding");
      if (ctx.fresh) {
        ctx.status = 304;
        return;
      }
      ctx.type = RESPONSE_MEDIA_TYPES[responseType];
      const encoding = ["br", "gzip"].find(
        (candidate) => ctx.acceptsEncodings(candidate, "identity") === candidate
      );
      if (encoding !== void 0) ctx.set("Content-Encoding", encoding);
      ctx.body = encoding === void 0 ? identity : copies[encoding];
    };
  };
  return {
    getDocs: serve("getDocs"),
    getDocsScript: serve("getDocsScript"),
    getOpenApiDocument: serve("getOpenApiDocument")
  };
}

// src/handlers.ts
async function createPlant(store, newPlant) {
  if (await store.create(newPlant) === "conflict") {
    throw new ApiError("conflict", ERROR_MESSAGES.conflict(BigInt(newPlant.id)));
  }
  return toPlant(newPlant);
}
async function servedAsFile() {
  throw new Error("answered as a static file by docs/serve-docs-assets.ts");
}
function contractHandlers(store) {
  return {
    createPlant: (body) => createPlant(store, body),
    getHealth: async () => ({ status: "ok" }),
    // Ready means able to commit (the one operation is a write), not merely reachable.
    getReadiness: async () => {
      const readiness = store.readiness();
      if (!readiness.ready) {
        throw new ApiError(
          "storeUnavailable",
          ERROR_MESSAGES.storeUnavailable.notReady(readiness.cause.code),
          { "Retry-After": String(STORE_RETRY_AFTER_SECONDS) }
        );
      }
      await store.ping();
      return { status: "ok" };
    },
    getIndex: async () => ({ docs: "/docs", openapi: "/openapi.json" }),
    getOpenApiDocument: servedAsFile,
    getDocs: servedAsFile,
    getDocsScript: servedAsFile
  };
}

// src/http/contract-router.ts
import { Router } from "@koa/router";

// src/http/json-body.ts
import { parse as parseContentType } from "content-type";
import bodyParser from "koa-bodyparser";
import typeIs from "type-is";
var JSON_TYPES = ["application/json", "application/*+json"];
var MIN_PIECE_BYTES = 512;
var UTF8 = new TextDecoder("utf-8", { fatal: true });
var UTF8_NAMES = /* @__PURE__ */ new Set(["utf-8", "utf8"]);
function jsonBody(schema, limitBytes) {
  const parse = bodyParser({
    enableTypes: ["text"],
    extendTypes: { text: JSON_TYPES },
    textLimit: String(limitBytes),
    // One character per byte (decoded strictly below: utf-8 here would turn bad bytes into
    // U+FFFD); 'binary' is Node's own latin1, iconv-lite's decodes byte by byte in JavaScript.
    encoding: "binary"
  });
  const read = async (ctx) => {
    let pieces = 0;
    let bytes = 0;
    let refuse = () => void 0;
    const tooMany = new Promise((_, reject) => {
      refuse = reject;
    });
    const count = (chunk) => {
      pieces += 1;
      bytes += chunk.length;
      if (pieces <= 8 + bytes / MIN_PIECE_BYTES) return;
      ctx.req.off("data", count);
      ctx.req.unpipe();
      ctx.req.pause();
      refuse(
        new ApiError(
          "malformedRequest",
          ERROR_MESSAGES.malformedRequest.tooManyPieces(MIN_PIECE_BYTES)
        )
      );
    };
    ctx.req.on("data", count);
    try {
      await Promise.race([parse(ctx, async () => void 0), tooMany]);
    } finally {
      ctx.req.off("data", count);
    }
  };
  const checkHeaders = (ctx) => {
    const headers = ctx.req.headers;
    const declaredLength = Number(headers["content-length"] ?? 0);
    if (headers["transfer-encoding"] === void 0 && declaredLength === 0) throw missingBody();
    const contentType = headers["content-type"] ?? "";
    const parsed = contentType === JSON_TYPES[0] ? void 0 : parseContentType(contentType);
    if (parsed && !typeIs.is(contentType, JSON_TYPES)) {
      throw new ApiError(
        "unsupportedMediaType",
        ERROR_MESSAGES.unsupportedMediaType.notJson(parsed.type || "no content type")
      );
    }
    const charset = parsed?.parameters.charset;
    const coding = headers["content-encoding"]?.trim().toLowerCase();
    if (coding !== void 0) headers["content-encoding"] = coding;
    if (charset !== void 0 && !UTF8_NAMES.has(charset.toLowerCase()) || coding === "br") {
      throw new ApiError("unsupportedMediaType", ERROR_MESSAGES.unsupportedMediaType.coding);
    }
    if (declaredLength > limitBytes && (coding === void 0 || coding === "identity")) {
      throw new ApiError("payloadTooLarge", ERROR_MESSAGES.payloadTooLarge(limitBytes));
    }
  };
  const validate = (ctx) => validated(schema, ctx.request.rawBody ?? "");
  return { checkHeaders, read, validate };
}
function validated(schema, latin1) {
  let text = latin1;
  if (Buffer.byteLength(latin1) !== latin1.length) {
    try {
      text = UTF8.decode(Buffer.from(latin1, "latin1"));
    } catch {
      throw new ApiError("malformedJson", ERROR_MESSAGES.malformedJson.notUtf8);
    }
  }
  if (text.trim() === "") throw missingBody();
  let value;
  try {
    value = parseJson(text, { flatRecord: NEW_PLANT_JSON_LIMITS });
  } catch (error) {
    if (error instanceof JsonTooWideError) {
      throw new ApiError(
        "validationFailed",
        ERROR_MESSAGES.validationFailed.tooManyProperties(error, NEW_PLANT_JSON_LIMITS.maxMembers)
      );
    }
    if (error instanceof MalformedJsonError) {
      throw new ApiError("malformedJson", ERROR_MESSAGES.malformedJson.notJson(error));
    }
    if (error instanceof JsonTooDeepError) {
      throw new ApiError("jsonTooDeep", ERROR_MESSAGES.jsonTooDeep(error));
    }
    throw error;
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError("validationFailed", formatIssues(result.error.issues));
  return result.data;
}
function missingBody() {
  return new ApiError("missingBody", ERROR_MESSAGES.missingBody);
}

// src/http/require-bearer.ts
var REALM = 'Bearer realm="plant-store"';
var BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
function requireBearer(tokens) {
  const admit = (ctx, credential) => {
    if (!credential) {
      throw new ApiError("unauthorized", ERROR_MESSAGES.unauthorized.refused, {
        "WWW-Authenticate": `${REALM}, error="invalid_token"`
      });
    }
    ctx.state.consumer = credential.name;
  };
  return function checkBearer(ctx) {
    const header = ctx.get("Authorization");
    if (!/^bearer(?: |$)/i.test(header)) {
      throw new ApiError("unauthorized", ERROR_MESSAGES.unauthorized.missing, {
        "WWW-Authenticate": REALM
      });
    }
    const token = BEARER.exec(header)?.[1];
    const found = token === void 0 ? void 0 : tokens.authenticate(token);
    if (found instanceof Promise) return found.then((credential) => admit(ctx, credential));
    admit(ctx, found);
  };
}

// src/http/contract-router.ts
var ROUTER_METHODS = ["HEAD", "GET", "PUT", "PATCH", "POST", "DELETE"];
function toRouterPath(path) {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}
function contractRouter(contract2, handlers, options) {
  const router = new Router({ methods: ROUTER_METHODS, strict: true, sensitive: true });
  const bearer = requireBearer(options.tokens);
  const authenticate = options.guardAuthentication?.(bearer) ?? bearer;
  for (const key of Object.keys(contract2)) {
    const route = contract2[key];
    const body = route.body ? jsonBody(route.body, options.bodyLimitBytes) : void 0;
    const around = options.around?.[key];
    const send = respond(
      route,
      handlers[key],
      body?.validate
    );
    const serve = async (ctx) => {
      ctx.state.route = route.path;
      const checked = route.auth === "bearer" ? authenticate(ctx) : void 0;
      if (checked) await checked;
      if (body) {
        body.checkHeaders(ctx);
        await body.read(ctx);
      }
      await (around ? around(ctx, () => send(ctx)) : send(ctx));
    };
    router.register(toRouterPath(route.path), [route.method], [serve], {
      name: route.operationId
    });
  }
  return router;
}
function respond(route, handler, validate) {
  const responseType = route.responseType ?? "json";
  const media = RESPONSE_MEDIA_TYPES[responseType];
  const contentType = responseType === "json" ? `${media}; charset=utf-8` : media;
  return async function serveRoute(ctx) {
    const result = await handler(validate?.(ctx));
    ctx.status = route.response.status;
    ctx.res.setHeader("Content-Type", contentType);
    ctx.body = responseType === "json" ? JSON.stringify(result) : String(result);
  };
}
var answerUnrouted = async (ctx, next) => {
  await next();
  const allow = ctx.response.get("Allow");
  if (!allow) throw new ApiError("notFound", ERROR_MESSAGES.notFound(ctx.method, ctx.path));
  throw new ApiError(
    "methodNotAllowed",
    ERROR_MESSAGES.methodNotAllowed(ctx.method, ctx.path, allow.split(", ")),
    { Allow: allow }
  );
};

// src/http/cors.ts
import koaCors from "@koa/cors";
function cors(allowedOrigins, router) {
  const allowed = new Set(allowedOrigins);
  const methods = new Set(
    Object.values(contract).flatMap(
      ({ method }) => method === "get" ? ["GET", "HEAD"] : [method.toUpperCase()]
    )
  );
  return koaCors({
    origin: (ctx) => {
      const origin = ctx.get("origin");
      if (!allowed.has(origin)) return "";
      if (ctx.method === "OPTIONS") {
        const wanted = ctx.get("access-control-request-method").toUpperCase();
        if (wanted !== "" && !router.match(ctx.path, wanted).route) return "";
      }
      return origin;
    },
    allowMethods: [...methods].sort(),
    allowHeaders: ["Authorization", "Content-Type", "X-Request-Id"],
    // The rate-limit headers too: the client paces itself on them, in a browser as well.
    exposeHeaders: [
      "X-Request-Id",
      "Retry-After",
      "WWW-Authenticate",
      "Allow",
      ...Object.values(RATE_LIMIT_HEADERS)
    ],
    maxAge: 600,
    credentials: false,
    keepHeadersOnError: true
  });
}

// src/http/request-context.ts
import { randomUUID } from "crypto";

// src/http/protocol-checks.ts
var MAX_HEADER_FIELDS = 2e3;
var CONTINUE_EXPECTATION = /(?:^|\W)100-continue(?:$|\W)/i;
function checkProtocol(request) {
  const headers = request.headers;
  if (request.httpVersionMajor !== 1) {
    throw malformed(
      `HTTP/${request.httpVersion} is not spoken here: send HTTP/1.1 (or HTTP/1.0) requests`
    );
  }
  if (headers.host === void 0 && request.httpVersion === "1.1") {
    throw malformed(ERROR_MESSAGES.malformedRequest.noHost);
  }
  if (request.rawHeaders.length > 2 * MAX_HEADER_FIELDS) {
    throw malformed(ERROR_MESSAGES.malformedRequest.tooManyHeaders(MAX_HEADER_FIELDS));
  }
  const expect = headers.expect;
  if (expect !== void 0 && !CONTINUE_EXPECTATION.test(expect)) {
    throw new ApiError("expectationFailed", ERROR_MESSAGES.expectationFailed);
  }
}
function malformed(message) {
  return new ApiError("malformedRequest", message);
}

// src/http/request-context.ts
var SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
function requestContext(logger, metrics) {
  return async function withRequestContext(ctx, next) {
    const started = performance.now();
    const given = ctx.get("X-Request-Id");
    const requestId = SAFE_REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.res.setHeader("X-Request-Id", requestId);
    ctx.res.setHeader("X-Content-Type-Options", "nosniff");
    ctx.res.setHeader("Cache-Control", "no-store");
    try {
      checkProtocol(ctx.req);
      await next();
    } catch (thrown) {
      if (!ctx.req.complete) await new Promise((resolve) => setImmediate(resolve));
      answerError(ctx, thrown, logger);
    } finally {
      const durationMs = performance.now() - started;
      const { method, status } = ctx;
      const route = ctx.state.route ?? null;
      metrics?.requestDuration.observe(
        { method, route: route ?? "unmatched", status: String(status) },
        durationMs / 1e3
      );
      const consumer = ctx.state.consumer ?? null;
      logger.info({ requestId, method, route, status, durationMs, consumer }, "request");
    }
  };
}

// src/limits/key.ts
import { hash } from "crypto";
import { isIP, isIPv4, isIPv6 } from "net";
import proxyAddr from "@fastify/proxy-addr";
import ipaddr from "ipaddr.js";
var UNKNOWN_ADDRESS = "unknown";
function proxyTrust(addresses) {
  return addresses.length === 0 ? void 0 : proxyAddr.compile([...addresses]);
}
function clientAddress(req, trust) {
  const peer = req.socket.remoteAddress ?? "";
  if (trust === void 0) return peer;
  const chain = proxyAddr.all(req, trust);
  return chain.slice(1).findLast((address) => isIP(address) !== 0) ?? peer;
}
function addressKey(address) {
  const plain = address.replace(/%.*$/, "");
  if (isIPv4(plain)) return plain;
  if (!isIPv6(plain)) return UNKNOWN_ADDRESS;
  const ip = ipaddr.IPv6.parse(plain);
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address().toString();
  const network = ip.parts.slice(0, 4).map((group) => group.toString(16));
  return `${network.join(":")}::/64`;
}
function boundedKey(text) {
  return text.length <= 200 ? text : `sha256:${hash("sha256", text, "hex")}`;
}

// src/limits/shared-counts.ts
import { LRUCache } from "lru-cache";
var MAX_KEYS = 1e5;
function memoryCounts() {
  const counts = new LRUCache({ max: MAX_KEYS });
  return {
    add: (takes, now) => takes.map(({ key, points, durationMs }) => {
      const old = counts.get(key);
      const live = old && old.endsAt > now ? old : { points: 0, endsAt: now + durationMs };
      const count = { points: live.points + points, endsAt: live.endsAt };
      counts.set(key, count);
      return count;
    }),
    sweep: () => counts.purgeStale()
  };
}
var UPSERT = (now) => `ON CONFLICT (key) DO UPDATE SET
    points = CASE WHEN rate_limits.ends_at <= ${now} THEN excluded.points
      ELSE rate_limits.points + excluded.points END,
    ends_at = CASE WHEN rate_limits.ends_at <= ${now} THEN excluded.ends_at
      ELSE rate_limits.ends_at END
  RETURNING key, points, ends_at`;
function databaseCounts(handle) {
  return handle.kind === "sqlite" ? sqliteCounts(handle.db) : postgresCounts(handle.pool, handle.settings.connectTimeoutMs);
}
function sqliteCounts(db) {
  const upsert = db.prepare(
    `INSERT INTO rate_limits (key, points, ends_at) VALUES (@key, @points, @now + @durationMs)
    ${UPSERT("@now")}`
  );
  const synchronous = Number(db.pragma("synchronous", { simple: true }));
  const busyTimeout = Number(db.pragma("busy_timeout", { simple: true }));
  const [relax, restore] = [`synchronous = 0`, `synchronous = ${synchronous}`].map(
    (pragma) => db.prepare(`PRAGMA ${pragma}`)
  );
  const [shortWait, longWait] = [100, busyTimeout].map(
    (ms) => db.prepare(`PRAGMA busy_timeout = ${ms}`)
  );
  const add = db.transaction(
    (takes, now) => takes.map((take) => {
      const row = upsert.get({ ...take, now });
      return { points: Number(row?.points), endsAt: Number(row?.ends_at) };
    })
  );
  const sweep = db.prepare("DELETE FROM rate_limits WHERE ends_at < ?");
  return {
    add: (takes, now) => {
      relax?.run();
      shortWait?.get();
      try {
        return add.immediate(takes, now);
      } finally {
        restore?.run();
        longWait?.get();
      }
    },
    sweep: (before) => sweep.run(before)
  };
}
function postgresCounts(pool, timeoutMs) {
  const text = `INSERT INTO rate_limits (key, points, ends_at)
    SELECT key, points, $4::bigint + duration
    FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS t(key, points, duration)
    ${UPSERT("$4::bigint")}`;
  return {
    add: async (takes, now) => {
      const sorted = [...takes].sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
      const column = (name) => sorted.map((take) => take[name]);
      const values = [column("key"), column("points"), column("durationMs"), now];
      const query = { text, values, query_timeout: timeoutMs };
      const { rows } = await pool.query(query);
      const byKey = new Map(rows.map((row) => [row.key, row]));
      return takes.map(({ key }) => {
        const row = byKey.get(key);
        return { points: Number(row?.points), endsAt: Number(row?.ends_at) };
      });
    },
    sweep: (before) => pool.query("DELETE FROM rate_limits WHERE ends_at < $1", [before])
  };
}
function decide(state, limit, count) {
  if (count.points >= limit) state.spentUntil = count.endsAt;
  return {
    allowed: count.points <= limit,
    remaining: Math.max(0, limit - count.points),
    msBeforeNext: Math.max(0, count.endsAt - Date.now())
  };
}
function settle(value, then) {
  return value instanceof Promise ? value.then(then) : then(value);
}
var UNSEEN = { leased: 0, leaseUntil: 0, used: 0, endsAt: 0, spentUntil: 0, seen: 0, rate: 0 };
var LEASE_MS = 100;
var LEASE_MIN_RATE = 200;
var SharedCounts = class {
  #store;
  #fallback = memoryCounts();
  #keys = new LRUCache({ max: MAX_KEYS });
  #onStoreError;
  #sweep;
  #waiting = [];
  #scheduled;
  #inFlight = false;
  constructor(store, onStoreError = () => void 0) {
    this.#store = store;
    this.#onStoreError = onStoreError;
    const sweep = async () => this.#store.sweep(Date.now() - 60 * 6e4);
    this.#sweep = setInterval(() => void sweep().catch(() => void 0), 5 * 6e4).unref();
  }
  /** Decided in memory (a spent key, a leased point) without a promise; else after a batch. */
  consume(key, limit, durationMs) {
    const now = Date.now();
    const state = this.#state(key, now);
    if (state.spentUntil > now) {
      return { allowed: false, remaining: 0, msBeforeNext: state.spentUntil - now };
    }
    if (state.leased > 0 && state.leaseUntil > now && state.endsAt > now) {
      state.leased -= 1;
      state.used += 1;
      return decide(state, limit, { points: state.used, endsAt: state.endsAt });
    }
    return new Promise((resolve) => {
      this.#waiting.push({ key, limit, durationMs, resolve });
      this.#schedule();
    }).then((count) => decide(state, limit, count));
  }
  close() {
    clearInterval(this.#sweep);
  }
  #state(key, now) {
    let state = this.#keys.get(key);
    if (state === void 0) {
      state = { ...UNSEEN, since: now };
      this.#keys.set(key, state);
    }
    state.seen += 1;
    if (now - state.since >= LEASE_MS) {
      state.rate = state.seen * 1e3 / (now - state.since);
      state.seen = 0;
      state.since = now;
    }
    return state;
  }
  #schedule() {
    if (this.#scheduled !== void 0 || this.#inFlight || this.#waiting.length === 0) return;
    this.#scheduled = setImmediate(() => {
      this.#scheduled = void 0;
      void this.#run(this.#waiting.splice(0));
    });
  }
  async #run(batch) {
    this.#inFlight = true;
    const now = Date.now();
    const demand = /* @__PURE__ */ new Map();
    for (const { key, limit, durationMs } of batch) {
      const points = (demand.get(key)?.points ?? 0) + 1;
      demand.set(key, { key, durationMs, limit, points, lease: 0 });
    }
    const takes = [...demand.values()].map((take) => {
      const state = this.#keys.get(take.key);
      const left = state && state.endsAt > now ? take.limit - state.used - take.points : 0;
      const rate = state?.rate ?? 0;
      const wanted = rate >= LEASE_MIN_RATE ? Math.floor(rate * LEASE_MS / 1e3) : 0;
      take.lease = Math.max(0, Math.min(wanted, Math.floor(left / 4)));
      const unused = state && state.endsAt - now > LEASE_MS ? state.leased : 0;
      if (state) state.leased = 0;
      const points = take.points + take.lease - unused;
      return { key: take.key, points, durationMs: take.durationMs };
    });
    let counts;
    try {
      counts = await this.#store.add(takes, now);
    } catch (error) {
      this.#onStoreError(error);
      counts = await this.#fallback.add(takes, now);
    }
    this.#inFlight = false;
    this.#schedule();
    const next = /* @__PURE__ */ new Map();
    [...demand.values()].forEach((take, index) => {
      const count = counts[index] ?? { points: take.limit + 1, endsAt: now };
      const before = count.points - take.points - take.lease;
      next.set(take.key, before);
      const state = this.#keys.get(take.key);
      if (state === void 0) return;
      state.used = before + take.points;
      state.endsAt = count.endsAt;
      state.leased = Math.max(0, Math.min(take.lease, take.limit - state.used));
      state.leaseUntil = now + LEASE_MS;
    });
    for (const waiting of batch) {
      const points = (next.get(waiting.key) ?? 0) + 1;
      next.set(waiting.key, points);
      const state = this.#keys.get(waiting.key);
      waiting.resolve({ points, endsAt: state?.endsAt ?? now });
    }
  }
};

// src/limits/guard.ts
function rateLimited(limits, authenticate) {
  const counted = (ctx) => settle(limits.consumeCredential(ctx.state.consumer ?? ""), (headers) => {
    for (const name in headers) ctx.res.setHeader(name, headers[name] ?? "");
  });
  const refused = (ctx, error) => {
    if (!(error instanceof ApiError && error.kind === "unauthorized")) throw error;
    return settle(limits.recordAuthFailure(addressKey(ctx.ip)), () => {
      throw error;
    });
  };
  return function limitedAuthentication(ctx) {
    let checked;
    try {
      checked = authenticate(ctx);
    } catch (error) {
      return refused(ctx, error);
    }
    if (checked instanceof Promise) {
      return checked.then(
        () => counted(ctx),
        (error) => refused(ctx, error)
      );
    }
    return counted(ctx);
  };
}
function anonymousLimit(limits, needsCredential2) {
  return function limitAnonymous(ctx, next) {
    if (needsCredential2(ctx)) return next();
    return settle(limits.consumeAnonymous(addressKey(ctx.ip)), next);
  };
}

// src/app.ts
var BEARER_ROUTES = /* @__PURE__ */ new Map();
for (const route of Object.values(contract)) {
  if (route.auth !== "bearer") continue;
  const methods = BEARER_ROUTES.get(route.path) ?? /* @__PURE__ */ new Set();
  BEARER_ROUTES.set(route.path, methods.add(route.method.toUpperCase()));
}
var needsCredential = (ctx) => BEARER_ROUTES.get(ctx.path)?.has(ctx.method) === true;
function createApp(options) {
  const { rateLimits, corsOrigins = [] } = options;
  const app = new Koa();
  const router = contractRouter(contract, contractHandlers(options.store), {
    tokens: options.tokens,
    bodyLimitBytes: options.bodyLimitBytes,
    ...rateLimits ? { guardAuthentication: (check) => rateLimited(rateLimits, check) } : {},
    around: serveDocsAssets(options.docsAssets)
  });
  app.use(requestContext(options.logger, options.metrics));
  const trust = proxyTrust(options.trustProxy ?? []);
  if (trust) {
    app.use((ctx, next) => {
      ctx.request.ip = clientAddress(ctx.req, trust);
      return next();
    });
  }
  if (rateLimits) app.use(anonymousLimit(rateLimits, needsCredential));
  if (corsOrigins.length > 0) app.use(cors(corsOrigins, router));
  app.use(router.routes());
  app.use(answerUnrouted);
  app.use(router.allowedMethods());
  app.silent = true;
  app.on("error", (error) => options.logger.error({ err: error }, "koa error"));
  return app;
}

// src/connection/descriptors.ts
import { readFileSync as readFileSync3 } from "fs";
import iconv from "iconv-lite";
var DESCRIPTOR_MARGIN = 64;
function fitToDescriptorLimit(max, logger, limit = softDescriptorLimit()) {
  if (limit === void 0 || max + DESCRIPTOR_MARGIN <= limit) return max;
  const fitted = Math.max(1, limit - DESCRIPTOR_MARGIN);
  logger.warn(
    { maxConnections: fitted, configured: max, descriptorLimit: limit },
    `MAX_CONNECTIONS=${max} does not fit the descriptor limit of ${limit} (ulimit -n; LimitNOFILE= in the systemd unit) with ${DESCRIPTOR_MARGIN} to spare: at most ${fitted} connections are served. Raise the limit or lower MAX_CONNECTIONS to silence this`
  );
  return fitted;
}
function softDescriptorLimit() {
  try {
    const soft = /^Max open files\s+(\d+)/m.exec(readFileSync3("/proc/self/limits", "utf8"))?.[1];
    return soft === void 0 ? void 0 : Number(soft);
  } catch {
    return void 0;
  }
}
function preloadRequestPath() {
  iconv.decode(Buffer.alloc(0), "utf-8");
}

// src/limits/rate-limits.ts
var BURST_WINDOW_SECONDS = 60;
var AUTH_FAILURE_WINDOW_SECONDS = 60;
var RateLimits = class _RateLimits {
  constructor(config, counts, onLimited = () => void 0) {
    this.config = config;
    this.counts = counts;
    this.onLimited = onLimited;
  }
  config;
  counts;
  onLimited;
  static create(config, store = memoryCounts(), options = {}) {
    return new _RateLimits(config, new SharedCounts(store, options.onStoreError), options.onLimited);
  }
  /** The `X-RateLimit-*` headers (undefined when off), or throws the 429 with them. */
  consumeCredential(name) {
    const { perSecond, burst } = this.config;
    if (perSecond === 0) return void 0;
    return settle(this.#bursty(`c:${boundedKey(name)}`, perSecond, burst), (decision) => {
      const headers = {
        [RATE_LIMIT_HEADERS.limit]: String(perSecond),
        [RATE_LIMIT_HEADERS.remaining]: String(burst > perSecond ? decision.remaining : 0),
        [RATE_LIMIT_HEADERS.reset]: String(Math.max(0, Math.ceil(decision.msBeforeNext / 1e3)))
      };
      this.#check(decision, "credential", headers);
      return headers;
    });
  }
  recordAuthFailure(address) {
    const budget = this.config.authFailuresPerMinute;
    if (budget === 0) return;
    const key = `f:${boundedKey(address)}`;
    const decision = this.counts.consume(key, budget, AUTH_FAILURE_WINDOW_SECONDS * 1e3);
    return settle(decision, (decided) => this.#check(decided, "refused credential"));
  }
  consumeAnonymous(address) {
    if (this.config.anonymous === void 0) return;
    const { perSecond, burst } = this.config.anonymous;
    const decision = this.#bursty(`a:${boundedKey(address)}`, perSecond, burst);
    return settle(decision, (decided) => this.#check(decided, "address"));
  }
  #bursty(key, perSecond, burst) {
    if (burst <= perSecond) {
      return this.counts.consume(`${key}:s`, burst, Math.round(burst * 1e3 / perSecond));
    }
    const window = BURST_WINDOW_SECONDS * 1e3;
    return settle(
      this.counts.consume(`${key}:b`, burst - perSecond, window),
      (allowance) => allowance.allowed ? allowance : settle(this.counts.consume(`${key}:s`, perSecond, 1e3), (rate) => ({
        allowed: rate.allowed,
        remaining: 0,
        msBeforeNext: Math.min(allowance.msBeforeNext, rate.msBeforeNext)
      }))
    );
  }
  /** Past the limit, throws the 429 with Retry-After and `headers`. */
  #check(decision, who, headers = {}) {
    if (decision.allowed) return;
    this.onLimited(who === "credential" ? "token" : "address");
    const seconds = Math.max(1, Math.ceil(decision.msBeforeNext / 1e3));
    const message = ERROR_MESSAGES.rateLimited(who, seconds);
    throw new ApiError("rateLimited", message, { ...headers, "Retry-After": String(seconds) });
  }
  close() {
    this.counts.close();
  }
};

// src/observability/store-timing.ts
function measureStore(store, metrics) {
  const series = (operation, outcomes) => new Map(
    outcomes.map((outcome) => [
      outcome,
      metrics.storeOperationDuration.labels({ operation, outcome })
    ])
  );
  const create = series("create", ["created", "replayed", "conflict", "error"]);
  const ping = series("ping", ["ok", "error"]);
  const timed = (call, of, ok) => {
    const started = performance.now();
    const observe = (outcome) => of.get(outcome)?.observe((performance.now() - started) / 1e3);
    return call.then(
      (value) => {
        observe(ok ?? String(value));
        if (value === "created") metrics.plantsCreated.inc();
        return value;
      },
      (error) => {
        observe("error");
        throw error;
      }
    );
  };
  return {
    create: (plant) => timed(store.create(plant), create),
    ping: () => timed(store.ping(), ping, "ok"),
    readiness: () => store.readiness(),
    close: () => store.close()
  };
}

// src/store/sqlite/sqlite-store.ts
import { statSync } from "fs";
import { dirname as dirname2 } from "path";
function createSqliteStore(options) {
  return new SqliteStore(options);
}
var SqliteStore = class extends BatchedStore {
  #filename;
  #db;
  #ownsDb;
  #insert;
  #select;
  #probe;
  #commit;
  #files;
  #directory;
  /** The directory when a full check last found every file the one opened. */
  #checkedDirectory;
  constructor(options) {
    super(options);
    const { filename } = options;
    this.#filename = filename;
    this.#ownsDb = options.db === void 0;
    this.#db = options.db ?? openDatabase(filename, options);
    this.#insert = this.#db.prepare(
      "INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING"
    ).safeIntegers(true);
    this.#select = this.#db.prepare("SELECT id, name, tag FROM plants WHERE id = ?").safeIntegers(true);
    const applicationId = Number(this.#db.pragma("application_id", { simple: true }));
    this.#probe = this.#db.prepare(`PRAGMA application_id = ${applicationId}`);
    this.#commit = this.#db.transaction(
      (plants) => plants.map((plant) => {
        try {
          return { ok: true, value: this.#createRow(plant) };
        } catch (error) {
          if (!this.#db.inTransaction) throw error;
          return { ok: false, error };
        }
      })
    );
    this.#directory = dirname2(filename);
    this.#files = [filename, `${filename}-wal`, `${filename}-shm`].map((path) => ({
      path,
      opened: statSync(path, { bigint: true })
    }));
    this.startProbing();
  }
  /** Read back from SQLite (synchronous: 1 NORMAL, 2 FULL). */
  settings() {
    const read = (name) => this.#db.pragma(name, { simple: true });
    return {
      journalMode: String(read("journal_mode")),
      synchronous: Number(read("synchronous")),
      busyTimeoutMs: Number(read("busy_timeout")),
      schemaVersion: schemaVersion(this.#db),
      walAutocheckpoint: Number(read("wal_autocheckpoint"))
    };
  }
  commitBatch(plants) {
    const results = this.#retryWhenFull(() => this.#commit.immediate(plants));
    this.#checkFiles();
    return results;
  }
  async query1() {
    this.#db.prepare("SELECT 1").get();
  }
  async probeWrite() {
    this.#retryWhenFull(() => this.#probe.run());
    this.#checkFiles();
  }
  translate = translateSqliteError;
  describe = (error) => describeSqliteFailure(error, this.#filename);
  async release() {
    if (this.#ownsDb) this.#db.close();
  }
  /** A write that finds the disk full is retried once after a checkpoint freed the WAL. */
  #retryWhenFull(write2) {
    try {
      return write2();
    } catch (error) {
      if (!sqliteCode(error)?.startsWith("SQLITE_FULL")) throw error;
      const [result] = this.#db.pragma("wal_checkpoint(TRUNCATE)");
      if (result?.busy !== 0n) throw error;
      return write2();
    }
  }
  /**
   * Deleting, renaming or replacing a file changes its directory's mtime, so while the directory
   * is as a full check left it, one stat answers (stat-ing the -wal made each fsync dearer).
   */
  #checkFiles() {
    const directory = statSync(this.#directory, { throwIfNoEntry: false });
    const seen = directory && `${directory.dev}:${directory.ino}:${directory.mtimeMs}`;
    if (seen !== void 0 && seen === this.#checkedDirectory) return;
    this.#checkedDirectory = void 0;
    for (const { path, opened } of this.#files) {
      const now = statSync(path, { bigint: true, throwIfNoEntry: false });
      if (now === void 0) throw new DatabaseFileGoneError("FILE_DELETED", path);
      if (now.dev !== opened.dev || now.ino !== opened.ino) {
        throw new DatabaseFileGoneError("FILE_REPLACED", path);
      }
    }
    if (directory !== void 0 && Date.now() - Number(directory.mtimeMs) > 2e3) {
      this.#checkedDirectory = seen;
    }
  }
  #createRow(plant) {
    if (this.#insert.run(plant.id, plant.name, plant.tag ?? null).changes === 1) return "created";
    const existing = this.#select.get(plant.id);
    if (existing === void 0) throw new Error(`Plant ${plant.id} neither inserted nor found`);
    return outcomeAgainst(existing, plant);
  }
};

// src/server.ts
async function cleanUp(list) {
  const failures = [];
  for (const close of [...list].reverse()) await close().catch((error) => failures.push(error));
  if (failures.length > 0) throw failures[0];
}
async function startServer(config, logger) {
  const opened = [];
  try {
    const resources = await openResources(config, logger, opened);
    const app = createApp({
      store: resources.store,
      tokens: resources.tokens,
      bodyLimitBytes: config.bodyLimitBytes,
      logger,
      ...resources.metrics ? { metrics: resources.metrics } : {},
      ...resources.rateLimits ? { rateLimits: resources.rateLimits } : {},
      ...config.corsOrigins ? { corsOrigins: config.corsOrigins } : {},
      ...config.trustProxy ? { trustProxy: config.trustProxy } : {}
    });
    const listening = await listen(app, config, logger, opened);
    const inCluster = cluster2.isWorker;
    if (resources.metrics && inCluster) {
      const { shareWorkerMetrics } = await import("./cluster-metrics-4QYXQ4GL.js");
      shareWorkerMetrics(resources.metrics);
    }
    const metricsServer = resources.metrics && config.metrics && !inCluster ? await startMetricsServer(
      resources.metrics,
      config.metrics,
      logger,
      httpServerOptions(httpTimeouts(config))
    ) : void 0;
    if (metricsServer) opened.push(() => metricsServer.close());
    let closing;
    return {
      url: listening.url,
      server: listening.server,
      store: resources.store,
      ...metricsServer ? { metricsUrl: metricsServer.url } : {},
      close: () => {
        closing ??= cleanUp(opened);
        return closing;
      }
    };
  } catch (error) {
    await cleanUp(opened).catch(() => void 0);
    throw error;
  }
}
async function openResources(config, logger, opened) {
  const service = config.metrics ? new (await import("./metrics-DXKMVNOB.js")).ServiceMetrics() : void 0;
  const { database } = config;
  if (config.tokens.length === 0 && database.kind === "sqlite" && !existsSync3(database.filename)) {
    throw new ConfigError(NO_CREDENTIAL_MESSAGE);
  }
  const handle = await openDatabaseHandle(database, {
    durability: config.durability,
    ...config.postgres ? { postgres: config.postgres } : {},
    onError: (error, context) => logger.warn(`${context}: ${error.message}`)
  });
  opened.push(() => handle.close());
  const store = await openPlantStore(handle, {
    onReadinessChange: (readiness) => {
      if (readiness.ready) return logger.info("ready again: the store commits");
      const { code, message, action } = readiness.cause;
      logger.error({ cause: code }, `not ready (${code}): ${message}. ${action}`);
    },
    ...service ? { observer: service.storeObserver() } : {}
  });
  opened.push(() => store.close());
  const tokens = tokenStore(handle);
  if (config.tokens.length === 0) {
    const now = /* @__PURE__ */ new Date();
    const records = await tokens.list();
    if (!records.some((record) => tokenStatus(record, now) === "active")) {
      throw new ConfigError(NO_CREDENTIAL_MESSAGE);
    }
  }
  let storeFailing = false;
  const rateLimits = config.rateLimit ? RateLimits.create(config.rateLimit, databaseCounts(handle), {
    ...service ? { onLimited: (limit) => service.rateLimited.inc({ limit }) } : {},
    onStoreError: (error) => {
      if (storeFailing) return;
      storeFailing = true;
      setTimeout(() => storeFailing = false, 6e4).unref();
      logger.warn(
        `rate limits: the shared counts cannot be written (${String(error)}); counting in this process's memory meanwhile`
      );
    }
  }) : void 0;
  if (rateLimits) opened.push(async () => rateLimits.close());
  return {
    store: service ? measureStore(store, service) : store,
    tokens: TokenRegistry.fromTokens(config.tokens, new ManagedTokenVerifier(tokens)),
    ...rateLimits ? { rateLimits } : {},
    ...service ? { metrics: service } : {}
  };
}
async function openPlantStore(handle, options) {
  if (handle.kind === "sqlite") {
    return createSqliteStore({ ...options, filename: handle.filename, db: handle.db });
  }
  const { createPostgresStore } = await import("./postgres-store-GFFX7RLK.js");
  return createPostgresStore({ ...options, url: handle.url, handle });
}
function httpTimeouts(config) {
  return {
    ...config.keepAliveTimeoutMs ? { keepAliveTimeoutMs: config.keepAliveTimeoutMs } : {},
    ...config.timeouts
  };
}
async function listen(app, config, logger, opened) {
  preloadRequestPath();
  const max = config.maxConnections ? fitToDescriptorLimit(config.maxConnections, logger) : 0;
  const trust = proxyTrust(config.trustProxy ?? []);
  const { server, drain } = createHttpServer(app.callback(), {
    timeouts: httpTimeouts(config),
    cap: {
      max,
      onReached: () => logger.warn(
        { maxConnections: max },
        `connection cap reached: ${max} connections are open; each new one closes a connection of the address holding the most (its oldest idle one first). If this is real traffic, raise MAX_CONNECTIONS (and the descriptor limit, LimitNOFILE=) or add instances`
      ),
      ...trust ? { exempt: (address) => trust(address, 0) } : {}
    },
    drain: {
      ...config.shutdownDelayMs ? { delayMs: config.shutdownDelayMs } : {},
      ...cluster2.isWorker ? { othersStopped: allWorkersStoppedAccepting } : {}
    }
  });
  const url = await listenOn(server, config.port, config.host);
  server.on("error", warnOnce(logger));
  opened.push(() => drain.shutdown());
  return { server, url };
}
function warnOnce(logger) {
  let warned = false;
  return (error) => {
    if (error.code !== "EMFILE" && error.code !== "ENFILE") {
      logger.error({ err: error }, "HTTP server error");
      return;
    }
    if (warned) return;
    warned = true;
    logger.error(
      { code: error.code },
      "accepting connections fails: the process is out of file descriptors. Lower MAX_CONNECTIONS below the descriptor limit (ulimit -n; LimitNOFILE= in the systemd unit) or raise that limit"
    );
  };
}

// src/main.ts
var SHUTDOWN_BOUND_MS = 1e4;
async function main() {
  let config;
  try {
    config = loadConfig();
    await run(config);
  } catch (error) {
    failedToStart(error, config);
  }
}
async function run(config) {
  const baseLogger = createLogger(config.logLevel, {
    pretty: wantsPrettyLogs(config.production, process.stdout.isTTY)
  });
  const { kind } = config.database;
  const dataDirectory = dirname3(developmentTokenPath(config.database));
  const loose = kind === "sqlite" || config.developmentToken ? looseDirectoryWarning(dataDirectory) : void 0;
  const warnLoose = (logger2) => loose !== void 0 && logger2.warn(loose);
  const development = config.developmentToken ? await loadDevelopmentToken(developmentTokenPath(config.database)) : void 0;
  if (config.webConcurrency > 1 && cluster3.isPrimary) {
    process.exit(
      await runPrimary({
        workers: config.webConcurrency,
        port: config.port,
        host: config.host,
        logger: baseLogger,
        onListening: (url) => {
          warnLoose(baseLogger);
          announce(url, baseLogger, config, development);
        },
        metrics: config.metrics,
        serverOptions: httpServerOptions({ keepAliveTimeoutMs: config.keepAliveTimeoutMs })
      })
    );
  }
  const worker = cluster3.worker;
  let stopWorker = () => process.exit(0);
  if (worker) {
    for (const signal of SHUTDOWN_SIGNALS) process.on(signal, () => void 0);
    process.on("message", (message) => message === SHUTDOWN_MESSAGE && stopWorker());
  }
  const logger = worker ? baseLogger.child({ pid: process.pid, worker: worker.id }) : baseLogger;
  const running = await startServer(
    development ? { ...config, tokens: [development.token] } : config,
    logger
  );
  let stopping = false;
  const shutdown = (signal) => {
    if (stopping) return;
    stopping = true;
    logger.info(signal ? { signal } : {}, "shutting down");
    const boundMs = config.shutdownDelayMs + SHUTDOWN_BOUND_MS - EXIT_FLUSH_MS;
    setTimeout(() => {
      logger.error(
        `shutdown not complete ${SHUTDOWN_BOUND_MS} ms after SHUTDOWN_DELAY_MS: exiting now`
      );
      void exitAfterLogs(logger, 1);
    }, boundMs).unref();
    running.close().then(
      () => {
        logger.info("stopped");
        return exitAfterLogs(logger, 0);
      },
      (error) => {
        logger.error({ err: error }, "shutdown failed");
        return exitAfterLogs(logger, 1);
      }
    );
  };
  if (worker) {
    stopWorker = () => shutdown();
    return void logger.info("worker serving");
  }
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, () => shutdown(signal));
  warnLoose(logger);
  announce(running.url, logger, config, development, running.metricsUrl);
}
function announce(url, logger, config, development, metricsUrl) {
  const metrics = metricsUrl === void 0 ? null : `${metricsUrl}/metrics`;
  if (config.production) {
    const announcer = logger.isLevelEnabled("info") ? logger : logger.child({}, { level: "info" });
    announcer.info(
      { url, database: config.database.shown, metrics },
      `Plant Store is listening on ${url}`
    );
    announcer.flush();
    return;
  }
  console.log(`Plant Store is listening on ${url} (${config.database.shown})`);
  if (metrics !== null) console.log(`Metrics: ${metrics}`);
  if (development === void 0) return;
  console.log(
    [
      "",
      `No PLANT_STORE_TOKENS configured: this server accepts the development token ${development.created ? "made now and kept" : "kept"} in ${development.file}:`,
      `  ${development.token}`,
      "Try it:",
      `  curl -sS -X POST ${url}/plants \\`,
      `    -H 'Authorization: Bearer ${development.token}' \\`,
      `    -H 'Content-Type: application/json' \\`,
      `    -d '{"id": 1, "name": "Monstera", "tag": "indoor"}'`,
      ""
    ].join("\n")
  );
}
function failedToStart(error, config) {
  console.error(`plant-store: ${startupFailure(error, config)}`);
  const debug = config?.logLevel === "debug" || config?.logLevel === "trace";
  if (debug && error instanceof Error) console.error(error.stack);
  process.exit(1);
}
function startupFailure(error, config) {
  if (error instanceof StartupError) return error.message;
  const listen2 = config === void 0 ? void 0 : listenFailure(error, config);
  if (listen2 !== void 0) return listen2;
  const reason = error instanceof Error ? error.message : String(error);
  return `failed to start: ${reason} (LOG_LEVEL=debug prints the stack)`;
}
function listenFailure(error, config) {
  const syscall = error instanceof Error && "syscall" in error ? error.syscall : void 0;
  if (!(error instanceof Error) || !["listen", "getaddrinfo"].includes(String(syscall))) {
    return void 0;
  }
  const port = "port" in error ? Number(error.port) : config.port;
  const address = String(
    "address" in error && error.address || "hostname" in error && error.hostname || config.host
  );
  const metrics = config.metrics !== void 0 && port === config.metrics.port;
  const [portSetting, hostSetting] = metrics ? ["METRICS_PORT", "METRICS_HOST"] : ["PORT", "HOST"];
  const where = `cannot listen on ${address}:${port}`;
  switch ("code" in error ? error.code : void 0) {
    case "EADDRINUSE":
      return `${where}: the port is already in use; stop the process that holds it or set ${portSetting} to a free port`;
    case "EACCES":
      return `${where}: permission denied (ports below 1024 need privileges); set ${portSetting} to 1024 or above`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `${where}: the host name ${address} does not resolve; set ${hostSetting} to an address of this machine (127.0.0.1, or 0.0.0.0 for all)`;
    case "EADDRNOTAVAIL":
      return `${where}: no network interface of this machine has that address; set ${hostSetting} to one it has (127.0.0.1, or 0.0.0.0 for all)`;
    default:
      return `${where}: ${error.message}`;
  }
}
main();
//# sourceMappingURL=main.js.map