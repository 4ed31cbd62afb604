import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/api-error.ts';
import {
  clusterBackend,
  decode,
  encode,
  type IpcChannel,
  serveClusterLimits,
} from './cluster-backend.ts';
import { RateLimiterRes } from './flexible.ts';
import { type Limiter, memoryBackend, type RateLimitBackend, RateLimits } from './rate-limits.ts';

/**
 * Two connected in-process channel ends that behave like `process.send`: every message goes
 * through JSON and arrives later, never in the same turn.
 */
function channelPair(): { worker: IpcChannel; primary: IpcChannel; close(): void } {
  const listeners = {
    worker: new Set<(m: unknown) => void>(),
    primary: new Set<(m: unknown) => void>(),
  };
  const closers: Array<() => void> = [];
  let open = true;
  const end = (self: 'worker' | 'primary', other: 'worker' | 'primary'): IpcChannel => ({
    send: (message) => {
      if (!open) throw new Error('channel closed');
      const copy: unknown = JSON.parse(JSON.stringify(message));
      setImmediate(() => {
        for (const listener of listeners[other]) listener(copy);
      });
    },
    onMessage: (listener) => {
      listeners[self].add(listener);
      return () => listeners[self].delete(listener);
    },
    onClose: (listener) => closers.push(listener),
  });
  return {
    worker: end('worker', 'primary'),
    primary: end('primary', 'worker'),
    close: () => {
      open = false;
      for (const closer of closers) closer();
    },
  };
}

/** A primary serving `backend` and `count` workers, each with its own channel. */
function machine(count: number, backend: RateLimitBackend = memoryBackend) {
  const server = serveClusterLimits(backend);
  const pairs = Array.from({ length: count }, () => channelPair());
  for (const pair of pairs) server.attach(pair.primary);
  return { server, pairs, workers: pairs.map((pair) => clusterBackend(pair.worker)) };
}

async function outcome(promise: Promise<unknown>): Promise<'ok' | 'limited'> {
  try {
    await promise;
    return 'ok';
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return 'limited';
    throw rejection;
  }
}

const spec = { keyPrefix: 'rl_token', points: 5, durationSeconds: 60 };

describe('clusterBackend', () => {
  it('counts the calls of every worker on one limiter in the primary', async () => {
    const { workers } = machine(2);
    const [a, b] = await Promise.all(workers.map((worker) => worker.limiter(spec)));
    if (a === undefined || b === undefined) throw new Error('no limiters');
    expect(a.points).toBe(5);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => outcome((i % 2 === 0 ? a : b).consume('env#1'))),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(5);
    expect(results.filter((r) => r === 'limited')).toHaveLength(3);
    const state = await b.get('env#1');
    expect(state).toBeInstanceOf(RateLimiterRes);
    expect(state?.consumedPoints).toBe(8);
    expect(state?.msBeforeNext).toBeGreaterThan(50_000);
    expect(await a.get('another key')).toBeNull();
    expect((await b.penalty('env#2', 3)).consumedPoints).toBe(3);
  });

  it('serves RateLimits unchanged: the 429 after the limit, whichever worker asks', async () => {
    const { workers } = machine(2);
    // A bucket of 3 refilled once a second: the four calls below take milliseconds.
    const config = { perSecond: 1, burst: 3, authFailuresPerMinute: 2 };
    const [one, two] = await Promise.all(
      workers.map((worker) => RateLimits.create(config, worker)),
    );
    if (one === undefined || two === undefined) throw new Error('no limits');
    await one.consumeCredential('env#1');
    await two.consumeCredential('env#1');
    await one.consumeCredential('env#1');
    const refused = await two.consumeCredential('env#1').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(429);
    // The primary's buckets decide at once, but across the channel every call is a promise:
    // the worker's limits wait for it (a RateLimiterRes taken from a promise would be wrong).
    const forwarded = one.consumeCredentialNow('env#1');
    expect(forwarded).toBeInstanceOf(Promise);
    await expect(forwarded).rejects.toMatchObject({ status: 429 });
    await two.consumeCredential('env#2'); // another credential has its own count
    await one.recordAuthFailure('203.0.113.7');
    await two.recordAuthFailure('203.0.113.7');
    await expect(one.checkAddress('203.0.113.7')).rejects.toBeInstanceOf(ApiError);
    await expect(two.checkAddress('198.51.100.1')).resolves.toBeUndefined();
  });

  it('forwards any method and result of whatever limiter the primary runs', async () => {
    class Bucket {
      constructor(readonly tokens: number) {}
    }
    const calls: unknown[][] = [];
    const custom: RateLimitBackend = {
      kind: 'custom',
      limiter: async (limiterSpec) =>
        ({
          points: limiterSpec.points,
          burst: 7,
          name: 'bucket',
          take: async (key: string, count: number, extra?: string) => {
            calls.push([key, count, extra]);
            if (count > 10) throw Object.assign(new Error('too many at once'), { code: 'E_MANY' });
            return new Bucket(10 - count);
          },
          nothing: async () => undefined,
        }) as unknown as Limiter,
      close: async () => undefined,
    };
    const server = serveClusterLimits(custom);
    const pair = channelPair();
    server.attach(pair.primary);
    const worker = clusterBackend(pair.worker, { revive: [Bucket] });
    const limiter = (await worker.limiter(spec)) as unknown as Record<string, unknown>;
    expect(limiter.burst).toBe(7);
    expect(limiter.name).toBe('bucket');
    const take = limiter.take as (key: string, count: number, extra?: string) => Promise<Bucket>;
    const bucket = await take('k', 3);
    expect(bucket).toBeInstanceOf(Bucket);
    expect(bucket.tokens).toBe(7);
    expect(calls).toEqual([['k', 3, undefined]]);
    const failure = await take('k', 11, 'x').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({ message: 'too many at once', code: 'E_MANY' });
    expect(await (limiter.nothing as () => Promise<unknown>)()).toBeUndefined();
  });

  it('sends the calls of one event-loop turn in one message, and their answers in one', async () => {
    const server = serveClusterLimits(memoryBackend);
    const pair = channelPair();
    const sent = { worker: 0, primary: 0 };
    const counted = (channel: IpcChannel, side: keyof typeof sent): IpcChannel => ({
      ...channel,
      send: (message) => {
        sent[side] += 1;
        channel.send(message);
      },
    });
    server.attach(counted(pair.primary, 'primary'));
    const limiter = await clusterBackend(counted(pair.worker, 'worker')).limiter(spec);
    expect(sent).toEqual({ worker: 1, primary: 1 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => outcome(limiter.consume('k'))),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(5);
    expect(sent).toEqual({ worker: 2, primary: 2 });
  });

  it('makes one limiter per spec on the primary, however many workers ask', async () => {
    let made = 0;
    const counting: RateLimitBackend = {
      kind: 'counting',
      limiter: (limiterSpec) => {
        made += 1;
        return memoryBackend.limiter(limiterSpec);
      },
      close: async () => undefined,
    };
    const { workers } = machine(3, counting);
    await Promise.all(workers.map((worker) => worker.limiter(spec)));
    await workers[0]?.limiter({ ...spec, keyPrefix: 'rl_auth_fail' });
    expect(made).toBe(2);
  });

  it('rejects waiting and later calls once the primary is gone or the backend is closed', async () => {
    const { workers, pairs } = machine(2);
    const limiter = await workers[0]?.limiter(spec);
    if (limiter === undefined || pairs[0] === undefined) throw new Error('no limiter');
    const waiting = limiter.consume('k');
    pairs[0].close();
    await expect(waiting).rejects.toThrow(/primary process is gone/);
    await expect(limiter.consume('k')).rejects.toThrow(/primary process is gone/);
    const other = await workers[1]?.limiter(spec);
    await workers[1]?.close();
    await expect(other?.get('k')).rejects.toThrow(/closed/);
  });
});

describe('encode/decode', () => {
  it('carries plain data, undefined, errors and known class instances through JSON', () => {
    const res = new RateLimiterRes(2, 1500, 3, false);
    const through = (value: unknown) =>
      decode(
        JSON.parse(JSON.stringify(encode(value))),
        new Map([['RateLimiterRes', RateLimiterRes]]),
      );
    expect(through({ a: [1, 'x', null, undefined], b: { c: true } })).toEqual({
      a: [1, 'x', null, undefined],
      b: { c: true },
    });
    const back = through(res);
    expect(back).toBeInstanceOf(RateLimiterRes);
    expect(back).toMatchObject({ remainingPoints: 2, msBeforeNext: 1500, consumedPoints: 3 });
    const error = through(new TypeError('bad')) as Error;
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.message]).toEqual(['TypeError', 'bad']);
    class Unknown {
      value = 1;
    }
    expect(through(new Unknown())).toEqual({ value: 1 });
  });
});
