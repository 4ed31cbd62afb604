import autocannon from 'autocannon';
import { benchId } from './ids.ts';

export interface LoadOptions {
  /** Base URL of the server, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly token: string;
  readonly connections: number;
  readonly durationSeconds: number;
  /** Fixed total request rate (req/s over all connections); unbounded when absent. */
  readonly overallRate?: number;
  /** Source of request numbers; shared across runs so no id is sent twice to one store. */
  readonly counter: { next: number };
}

export interface LoadResult {
  /** Completed requests per second over the run. */
  readonly requestsPerSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  /** Requests built, each with its own id (answered, in flight when the run stopped, or one
   * a connection had ready but never sent). */
  readonly sent: number;
  readonly ok: number;
  readonly non2xx: number;
  /** Answers by status code, e.g. `{ "200": 41230 }`. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Connection errors and timeouts. */
  readonly errors: number;
  readonly durationSeconds: number;
}

/**
 * Sends `POST /plants` with autocannon from this process for `durationSeconds`: every request
 * a valid NewPlant with its own id (`benchId(counter.next++)`) and the bearer token.
 *
 * @example
 * const counter = { next: 0 };
 * const result = await runLoad({ url, token, connections: 50, durationSeconds: 10, counter });
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { counter } = options;
  const firstId = counter.next;
  // autocannon's own histogram keeps whole milliseconds; the response event has the exact
  // time, so percentiles are computed from every response's latency instead.
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationSeconds,
        ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
        requests: [
          {
            method: 'POST',
            path: '/plants',
            headers: {
              authorization: `Bearer ${options.token}`,
              'content-type': 'application/json',
            },
            setupRequest: (request) => {
              const n = counter.next++;
              const tag = n % 3 === 0 ? '' : `,"tag":"bench-${n % 5}"`;
              return { ...request, body: `{"id":${benchId(n)},"name":"Bench plant ${n}"${tag}}` };
            },
          },
        ],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, _status, _bytes, milliseconds) => {
      latencies.push(milliseconds);
    });
  });
  latencies.sort((a, b) => a - b);
  const completed = result['2xx'] + result.non2xx;
  return {
    requestsPerSecond: completed / result.duration,
    latencyP50Ms: percentile(latencies, 0.5),
    latencyP99Ms: percentile(latencies, 0.99),
    // The ids handed out: under a fixed rate autocannon's own `requests.sent` adds the whole
    // per-second budget of every client, requests it never sent included.
    sent: counter.next - firstId,
    ok: result['2xx'],
    non2xx: result.non2xx,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count ?? 0]),
    ),
    errors: result.errors + result.timeouts,
    durationSeconds: result.duration,
  };
}

/** The value below which `fraction` of the sorted `values` lie (nearest rank). */
function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return sorted[Math.max(0, rank)] as number;
}
