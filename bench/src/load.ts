import autocannon from 'autocannon';

export interface LoadOptions {
  readonly url: string;
  readonly token: string;
  readonly connections: number;
  readonly seconds: number;
  /** Offered req/s over all connections; as fast as it goes when absent. */
  readonly rate?: number;
  /** Request numbers, shared by the windows of one run so no id is sent twice to a store. */
  readonly counter: { next: number };
  /** The bodies (`bodyOf`); `bench` when absent. */
  readonly body?: BodyShape;
}

/**
 * `bench`: `{"id":benchId(n),"name":"Bench plant n"}`, a tag on two of three, ids scattered;
 * `probe` (the probe shape): `{"id": N, "name": "Fern N", "tag": "herb"}` with N
 * counting up from `base` (`Date.now() × 1000` when the run starts), ids in ascending order.
 */
export type BodyShape = 'bench' | { readonly probe: number };

export interface LoadResult {
  /** Requests answered (any status). */
  readonly answered: number;
  readonly ok: number;
  readonly non2xx: number;
  /** Connection errors and timeouts. */
  readonly errors: number;
  readonly seconds: number;
  readonly p99Ms: number;
}

/**
 * `POST /plants` with autocannon from this process: every request a valid NewPlant with its
 * own id (`benchId`), a tag on two of three, and the bearer token.
 *
 * @example
 * const result = await runLoad({ url, token, connections: 20, seconds: 10, rate: 2000, counter: { next: 0 } });
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { counter } = options;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.seconds,
        ...(options.rate === undefined ? {} : { overallRate: options.rate }),
        requests: [
          {
            method: 'POST',
            path: '/plants',
            headers: {
              authorization: `Bearer ${options.token}`,
              'content-type': 'application/json',
            },
            setupRequest: (request) => ({
              ...request,
              body: bodyOf(options.body ?? 'bench', counter.next++),
            }),
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          answered: result['2xx'] + result.non2xx,
          ok: result['2xx'],
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
          seconds: result.duration,
          p99Ms: result.latency.p99,
        });
      },
    );
  });
}

/**
 * The body of request n in `shape`.
 *
 * @example
 * bodyOf({ probe: 1_764_600_000_000_000 }, 2); // '{"id": 1764600000000002, "name": "Fern 1764600000000002", "tag": "herb"}'
 */
export function bodyOf(shape: BodyShape, n: number): string {
  if (shape !== 'bench') {
    const id = shape.probe + n;
    return `{"id": ${id}, "name": "Fern ${id}", "tag": "herb"}`;
  }
  const tag = n % 3 === 0 ? '' : `,"tag":"bench-${n % 5}"`;
  return `{"id":${benchId(n)},"name":"Bench plant ${n}"${tag}}`;
}

const SPACE = 2n ** 50n;
const ODD = 0x9e3779b97f4a7n | 1n;

/**
 * The id of request n: unique, odd and scattered over [0, 2^51) (n ↦ n·ODD mod 2^50 is a
 * bijection), so each insert lands on a random B-tree leaf, as client-chosen ids do.
 *
 * @example
 * benchId(0); // 1n
 */
export function benchId(n: number): bigint {
  return ((BigInt(n) * ODD) % SPACE) * 2n + 1n;
}
