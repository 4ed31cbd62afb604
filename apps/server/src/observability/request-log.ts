import pino, { type Logger } from 'pino';

/** What the request log line of one answered request holds. */
export interface RequestLogEntry {
  readonly requestId: string;
  readonly method: string;
  /** The contract path of the route, or null when none matched. */
  readonly route: string | null;
  readonly status: number;
  readonly durationMs: number;
  /** The credential's name, or null for a request that was not authenticated. */
  readonly consumer: string | null;
}

/** Writes the line of one answered request, at info, when info is enabled. */
export type RequestLogWriter = (entry: RequestLogEntry) => void;

const REQUEST_MESSAGE = 'request';

/**
 * The writer of the request log: one line per answered request, at info. The line is built
 * directly as the exact text pino would write for `logger.info(entry, 'request')` (same level
 * and time fields, the logger's bindings, the fields in the same order, `msg` last) and handed
 * to the logger's stream: no merged object, no per-field serializer lookups on the hot path.
 * A logger configured in a way the direct line does not reproduce (formatters, mixins, hooks,
 * a nested key, serializers or redaction of these fields, a stream that needs pino's metadata
 * such as a multistream) gets `logger.info` instead, so the output never differs.
 *
 * @example
 * const writeRequestLine = requestLogWriter(logger);
 * writeRequestLine({ requestId, method: 'POST', route: '/plants', status: 200, durationMs: 1.2, consumer: 'env#1' });
 */
export function requestLogWriter(logger: Logger): RequestLogWriter {
  if (!writesDirectly(logger)) {
    return (entry) => {
      if (logger.isLevelEnabled('info')) logger.info({ ...entry }, REQUEST_MESSAGE);
    };
  }
  const internals = logger as unknown as Record<symbol, unknown>;
  const levelPrefix = (internals[pino.symbols.lsCacheSym] as Record<number, string>)[
    logger.levels.values.info as number
  ];
  const time = internals[pino.symbols.timeSym] as () => string;
  const end = internals[pino.symbols.endSym] as string;
  const stream = internals[pino.symbols.streamSym] as { write(line: string): unknown };
  const tail = `,"msg":"${REQUEST_MESSAGE}"${end}`;
  return function writeRequestLine(entry) {
    if (!logger.isLevelEnabled('info')) return;
    // The bindings are read per line: a child logger's `setBindings` changes them.
    const chindings = internals[pino.symbols.chindingsSym] as string;
    stream.write(
      `${levelPrefix}${time()}${chindings},"requestId":${JSON.stringify(entry.requestId)}` +
        `,"method":${JSON.stringify(entry.method)},"route":${jsonOrNull(entry.route)}` +
        `,"status":${finiteOrNull(entry.status)},"durationMs":${finiteOrNull(entry.durationMs)}` +
        `,"consumer":${jsonOrNull(entry.consumer)}${tail}`,
    );
  };
}

function jsonOrNull(value: string | null): string {
  return value === null ? 'null' : JSON.stringify(value);
}

/** pino writes a non-finite number as null. */
function finiteOrNull(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

const ENTRY_KEYS = ['requestId', 'method', 'route', 'status', 'durationMs', 'consumer'];

/** Whether `logger` writes `logger.info(entry, 'request')` exactly as the direct line does. */
function writesDirectly(logger: Logger): boolean {
  const internals = logger as unknown as Record<symbol, unknown>;
  const { symbols } = pino;
  const formatters = internals[symbols.formattersSym] as { log?: unknown } | undefined;
  const hooks = internals[symbols.hooksSym] as { streamWrite?: unknown } | undefined;
  const serializers = (internals[symbols.serializersSym] ?? {}) as Record<string, unknown>;
  const stringifiers = (internals[symbols.stringifiersSym] ?? {}) as Record<
    string | symbol,
    unknown
  >;
  const stream = internals[symbols.streamSym] as Record<symbol, unknown> | undefined;
  const lsCache = internals[symbols.lsCacheSym] as Record<number, unknown> | undefined;
  return (
    stream !== undefined &&
    typeof (stream as { write?: unknown }).write === 'function' &&
    stream[symbols.needsMetadataGsym] !== true &&
    typeof lsCache?.[logger.levels.values.info as number] === 'string' &&
    typeof internals[symbols.timeSym] === 'function' &&
    typeof internals[symbols.endSym] === 'string' &&
    typeof internals[symbols.chindingsSym] === 'string' &&
    internals[symbols.messageKeySym] === 'msg' &&
    formatters?.log === undefined &&
    internals[symbols.mixinSym] === undefined &&
    hooks?.streamWrite === undefined &&
    !internals[symbols.nestedKeySym] &&
    !internals[(symbols as unknown as Record<string, symbol>).msgPrefixSym as symbol] &&
    stringifiers[symbols.wildcardFirstSym] === undefined &&
    ENTRY_KEYS.every((key) => serializers[key] === undefined && stringifiers[key] === undefined) &&
    serializers.msg === undefined &&
    stringifiers.msg === undefined
  );
}
