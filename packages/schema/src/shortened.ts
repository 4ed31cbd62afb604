/** How many characters of a caller's own text (a key, a path, a media type) a message quotes. */
export const QUOTED_MAX_LENGTH = 40;

/**
 * `text` as an error message quotes it: whole when it has at most `maxLength` characters
 * (Unicode code points), else its first `maxLength - 1` and `…`. A surrogate pair is never cut in
 * two, so the message stays well-formed Unicode whatever the caller sent.
 *
 * @example
 * shortened('x'.repeat(100), 5); // 'xxxx…'
 */
export function shortened(text: string, maxLength = QUOTED_MAX_LENGTH): string {
  // A code point takes one or two UTF-16 units: a text this short has few enough of them.
  if (text.length <= maxLength) return text;
  // `Array.from` splits a string into its code points (a lone surrogate is one of its own).
  const points = Array.from(text);
  return points.length <= maxLength ? text : `${points.slice(0, maxLength - 1).join('')}…`;
}
