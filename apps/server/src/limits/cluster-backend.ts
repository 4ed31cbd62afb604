import { RateLimiterRes } from './flexible.ts';
import type { Limiter, LimiterSpec, RateLimitBackend } from './rate-limits.ts';

/**
 * One end of a message channel between two processes: a cluster worker's `process`, or the
 * primary's `Worker` (see `workerChannel`/`primaryChannel` in cluster.ts); a pair of fakes in
 * tests. Messages must survive JSON (what `process.send` does to them).
 */
export interface IpcChannel {
  send(message: unknown): void;
  /** Calls `listener` with every message that arrives; returns what stops that. */
  onMessage(listener: (message: unknown) => void): () => void;
  /** Calls `listener` once the channel is closed (the other process is gone). */
  onClose?(listener: () => void): void;
}

/** Tags this module's messages, so they share the channel with any other. */
const TAG = 'plant-store:rate-limits';

/** Worker → primary. */
type Request =
  | { readonly id: number; readonly op: 'limiter'; spec: LimiterSpec }
  | {
      readonly id: number;
      readonly op: 'call';
      readonly limiter: number;
      readonly method: string;
      readonly args: readonly unknown[];
    };

/** Primary → worker: the outcome of request `id`. */
type Reply =
  | { readonly id: number; readonly ok: true; readonly value?: unknown }
  | { readonly id: number; readonly ok: false; readonly error: unknown };

/**
 * What goes over the channel: every request (or reply) of one event-loop turn in one message,
 * so a busy worker pays one send and one receive per turn, not per call.
 */
interface Envelope<T> {
  readonly tag: typeof TAG;
  readonly items: readonly T[];
}

/** Queues items and sends them in one envelope at the end of this event-loop turn. */
function batchSender<T>(channel: IpcChannel, onSendError: (items: T[], error: unknown) => void) {
  let queue: T[] = [];
  const flush = () => {
    const items = queue;
    queue = [];
    try {
      channel.send({ tag: TAG, items } satisfies Envelope<T>);
    } catch (error) {
      onSendError(items, error);
    }
  };
  return (item: T) => {
    if (queue.length === 0) setImmediate(flush);
    queue.push(item);
  };
}

/** Calls `listener` with each item of every envelope of this module on `channel`. */
function onItems<T>(channel: IpcChannel, listener: (item: T) => void): () => void {
  return channel.onMessage((message) => {
    if (typeof message !== 'object' || message === null) return;
    const envelope = message as Partial<Envelope<T>>;
    if (envelope.tag !== TAG || !Array.isArray(envelope.items)) return;
    for (const item of envelope.items) listener(item);
  });
}

/** What the primary tells a worker about a limiter it made: its handle and its shape. */
interface LimiterShape {
  readonly handle: number;
  /** Its methods: each becomes a forwarding method on the worker's side. */
  readonly methods: readonly string[];
  /** Its properties that hold a number, string or boolean (`points`, `keyPrefix`, …), read once. */
  readonly properties: Readonly<Record<string, number | string | boolean>>;
}

/**
 * Classes whose instances are rebuilt with their prototype on the worker's side (their state
 * is their own properties). rate-limiter-flexible answers with RateLimiterRes, and
 * `RateLimits` tells a refusal by `instanceof RateLimiterRes`.
 */
export const DEFAULT_REVIVED_CLASSES: readonly (abstract new (...args: never[]) => object)[] = [
  RateLimiterRes,
];

/** Options of `clusterBackend`. */
export interface ClusterBackendOptions {
  /** Classes rebuilt from their own properties; default `DEFAULT_REVIVED_CLASSES`. */
  readonly revive?: readonly (abstract new (
    ...args: never[]
  ) => object)[];
}

/**
 * A cluster worker's rate-limit backend: each limiter stands for one that the primary process
 * holds (`serveClusterLimits`), and every call on it (`consume`, `penalty`, `get`, whatever
 * the limiter has) goes to the primary as method name + arguments and comes back as its
 * result or rejection. So every worker counts against the same counters: a limit of N per
 * credential is N for the machine, not N per worker. It forwards without knowing what the
 * limiter does: whatever limiter the primary's backend makes, the workers use it as is.
 *
 * @example
 * const backend = clusterBackend(workerChannel());
 * const limits = await RateLimits.create(config.rateLimit, backend);
 */
export function clusterBackend(
  channel: IpcChannel,
  options: ClusterBackendOptions = {},
): RateLimitBackend {
  const classes = new Map(
    (options.revive ?? DEFAULT_REVIVED_CLASSES).map((type) => [type.name, type]),
  );
  const pending = new Map<
    number,
    { resolve(value: unknown): void; reject(error: unknown): void }
  >();
  let nextId = 1;
  let closed: Error | undefined;
  const stop = onItems<Reply>(channel, (reply) => {
    const waiting = pending.get(reply.id);
    if (waiting === undefined) return;
    pending.delete(reply.id);
    if (reply.ok) waiting.resolve(decode(reply.value, classes));
    else waiting.reject(decode(reply.error, classes));
  });
  const fail = (error: Error) => {
    closed = error;
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };
  channel.onClose?.(() =>
    fail(new Error('The rate limits are unreachable: the primary process is gone')),
  );
  const post = batchSender<Request>(channel, (requests, error) => {
    for (const request of requests) {
      pending.get(request.id)?.reject(error);
      pending.delete(request.id);
    }
  });
  const ask = (request: DistributiveOmit<Request, 'id'>): Promise<unknown> => {
    if (closed) return Promise.reject(closed);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      post({ ...request, id } as Request);
    });
  };
  return {
    kind: 'cluster',
    limiter: async (spec) => {
      const shape = (await ask({ op: 'limiter', spec })) as LimiterShape;
      const limiter: Record<string, unknown> = { ...shape.properties };
      for (const method of shape.methods) {
        limiter[method] = (...args: unknown[]) =>
          ask({ op: 'call', limiter: shape.handle, method, args: args.map(encode) });
      }
      return limiter as unknown as Limiter;
    },
    close: async () => {
      stop();
      fail(new Error('The rate-limit backend is closed'));
    },
  };
}

/** What the primary keeps for its workers: limiters shared by all of them. */
export interface ClusterLimitsServer {
  /** Answers the requests arriving on `channel` (one worker's); returns what stops that. */
  attach(channel: IpcChannel): () => void;
  /** Closes the primary's backend. */
  close(): Promise<void>;
}

/**
 * The primary's side of `clusterBackend`: makes the limiters on `backend` (one per spec,
 * whichever worker asks first; every worker gets the same one) and runs the calls the
 * workers forward.
 *
 * @example
 * const limits = serveClusterLimits(memoryBackend);
 * cluster.on('fork', (worker) => limits.attach(primaryChannel(worker)));
 */
export function serveClusterLimits(backend: RateLimitBackend): ClusterLimitsServer {
  const bySpec = new Map<string, Promise<LimiterShape>>();
  const byHandle = new Map<number, Limiter>();
  const shapeOf = (spec: LimiterSpec): Promise<LimiterShape> => {
    const key = JSON.stringify([spec.keyPrefix, spec.points, spec.durationSeconds]);
    let shape = bySpec.get(key);
    if (shape === undefined) {
      shape = backend.limiter(spec).then((limiter) => {
        const handle = byHandle.size + 1;
        byHandle.set(handle, limiter);
        return describe(handle, limiter);
      });
      // A failed make is not remembered: the next ask tries again.
      shape.catch(() => bySpec.delete(key));
      bySpec.set(key, shape);
    }
    return shape;
  };
  const run = async (request: Request): Promise<unknown> => {
    if (request.op === 'limiter') return shapeOf(request.spec);
    const limiter = byHandle.get(request.limiter) as Record<string, unknown> | undefined;
    const method = limiter?.[request.method];
    if (limiter === undefined || typeof method !== 'function') {
      throw new Error(`No rate-limiter method ${request.method} on limiter ${request.limiter}`);
    }
    return encode(
      await method.apply(
        limiter,
        request.args.map((arg) => decode(arg, new Map())),
      ),
    );
  };
  return {
    attach: (channel) => {
      // A reply to a worker that went away meanwhile is dropped: nobody waits for it.
      const post = batchSender<Reply>(channel, () => undefined);
      return onItems<Request>(channel, (request) => {
        run(request).then(
          (value) => post({ id: request.id, ok: true, value }),
          (error: unknown) => post({ id: request.id, ok: false, error: encode(error) }),
        );
      });
    },
    close: () => backend.close(),
  };
}

/** The handle, methods and plain properties of `limiter`, its prototype chain included. */
function describe(handle: number, limiter: Limiter): LimiterShape {
  const methods = new Set<string>();
  const properties: Record<string, number | string | boolean> = {};
  for (
    let level: object | null = limiter;
    level !== null && level !== Object.prototype;
    level = Object.getPrototypeOf(level)
  ) {
    for (const name of Object.getOwnPropertyNames(level)) {
      if (name === 'constructor' || name.startsWith('_') || name in properties) continue;
      let value: unknown;
      try {
        value = (limiter as unknown as Record<string, unknown>)[name];
      } catch {
        continue;
      }
      if (typeof value === 'function') methods.add(name);
      else if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean')
        properties[name] = value;
    }
  }
  return { handle, methods: [...methods], properties };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A marker key of values that JSON would not carry as they are. */
const KIND = '$plantStoreIpc';

/**
 * `value` in a form that survives JSON: class instances as their class name and own
 * properties, errors as name, message and code; plain data as it is.
 */
export function encode(value: unknown): unknown {
  if (value === undefined) return { [KIND]: 'undefined' };
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(encode);
  if (value instanceof Error) {
    const { code } = value as { code?: unknown };
    return {
      [KIND]: 'error',
      name: value.name,
      message: value.message,
      ...(typeof code === 'string' ? { code } : {}),
    };
  }
  const state: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) state[key] = encode(item);
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (prototype === Object.prototype || prototype === null) return state;
  return { [KIND]: 'instance', type: value.constructor.name, state };
}

/** The value `encode` made `encoded` from; instances of `classes` get their prototype back. */
export function decode(
  encoded: unknown,
  classes: ReadonlyMap<string, abstract new (...args: never[]) => object>,
): unknown {
  if (encoded === null || typeof encoded !== 'object') return encoded;
  if (Array.isArray(encoded)) return encoded.map((item) => decode(item, classes));
  const record = encoded as Record<string, unknown>;
  if (record[KIND] === 'undefined') return undefined;
  if (record[KIND] === 'error') {
    const error = new Error(String(record.message));
    error.name = String(record.name);
    if (typeof record.code === 'string') Object.assign(error, { code: record.code });
    return error;
  }
  const plain = (state: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(state).map(([key, item]) => [key, decode(item, classes)]));
  if (record[KIND] === 'instance') {
    const state = plain(record.state as Record<string, unknown>);
    const type = classes.get(String(record.type));
    return type ? Object.assign(Object.create(type.prototype) as object, state) : state;
  }
  return plain(record);
}
