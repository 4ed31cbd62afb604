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
  const width = (at: number) => ((text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1);
  let end = 0;
  for (let kept = 0; kept < maxLength - 1 && end < text.length; kept += 1) end += width(end);
  // Exactly one code point left: the whole text fits.
  if (end >= text.length || end + width(end) >= text.length) return text;
  return `${text.slice(0, end)}…`;
}
