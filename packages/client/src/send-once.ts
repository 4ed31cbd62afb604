import { type $Fetch, FetchError } from 'ofetch';
import type { AttemptOutcome } from './attempt-outcome.ts';
import type { HttpRequest } from './http-request.ts';
import { parseRetryAfter } from './retry-after.ts';

/**
 * Sends `request` once with ofetch, never throwing: every status is returned as a response
 * outcome with its body as text (parsed later, without losing integer precision), and any
 * failure to get a response as a failure outcome holding the underlying error.
 *
 * @example
 * const outcome = await sendOnce(ofetch, { url, method: 'POST', headers, body, timeoutMs: 10_000 });
 */
export async function sendOnce(fetcher: $Fetch, request: HttpRequest): Promise<AttemptOutcome> {
  try {
    const response = await fetcher.raw<string, 'text'>(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      timeout: request.timeoutMs,
      retry: false,
      ignoreResponseError: true,
      responseType: 'text',
    });
    return {
      kind: 'response',
      status: response.status,
      statusText: response.statusText,
      contentType: response.headers.get('content-type') ?? undefined,
      retryAfter: parseRetryAfter(response.headers.get('retry-after')),
      text: response._data ?? '',
    };
  } catch (thrown) {
    const error =
      thrown instanceof FetchError && thrown.cause !== undefined ? thrown.cause : thrown;
    return {
      kind: 'failure',
      error,
      timedOut: error instanceof Error && error.name === 'TimeoutError',
    };
  }
}
