const UNIT_MS = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
} as const;

/** The longest lifetime a token can be given: ten years (365-day years). */
export const MAX_DURATION_MS = 3650 * UNIT_MS.d;

const DURATION = /^(?:\d+[smhdw])+$/;
const PART = /(\d+)([smhdw])/g;

/**
 * Parses a token lifetime such as `30d`, `12h`, `90m`, `45s`, `2w` or a sum like `1d12h`
 * into milliseconds. Throws a RangeError naming the accepted forms for anything else, for
 * zero, and for more than ten years.
 *
 * @example
 * parseDuration('30d'); // 2_592_000_000
 * parseDuration('1h30m'); // 5_400_000
 */
export function parseDuration(text: string): number {
  if (!DURATION.test(text)) {
    throw new RangeError(
      `Invalid duration ${JSON.stringify(text)}: use a number and a unit (s, m, h, d, w), e.g. 30d, 12h, 90m or 1d12h`,
    );
  }
  let total = 0;
  for (const [, amount, unit] of text.matchAll(PART)) {
    total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  if (total <= 0) throw new RangeError(`Invalid duration ${JSON.stringify(text)}: must be > 0`);
  if (total > MAX_DURATION_MS) {
    throw new RangeError(`Invalid duration ${JSON.stringify(text)}: at most 3650d (ten years)`);
  }
  return total;
}
