const DELTA_SECONDS = /^\s*(\d+)\s*$/;
// Every HTTP-date form (IMF-fixdate, RFC 850, asctime) starts with a day name.
const HTTP_DATE = /^\s*[A-Za-z]{3}/;

/**
 * Reads a `Retry-After` header as whole seconds from `now`: either delta-seconds (`120`) or an
 * HTTP date (rounded up; a past date gives 0). Anything else, or no header, gives `undefined`.
 *
 * @example
 * parseRetryAfter('3'); // 3
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:58 GMT')); // 2
 * parseRetryAfter('soon'); // undefined
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const delta = DELTA_SECONDS.exec(value);
  if (delta) {
    const seconds = Number(delta[1]);
    return Number.isSafeInteger(seconds) ? seconds : undefined;
  }
  if (!HTTP_DATE.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
