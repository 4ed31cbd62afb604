import type { AttemptOutcome } from './attempt-outcome.ts';

const EXCERPT_LENGTH = 120;

/**
 * A short, single-line description of a response body for an error message: its content type
 * and the start of its text.
 *
 * @example
 * describeBody({ contentType: 'text/html', text: '<html>\n  <body>Bad gateway</body>\n</html>' });
 * // 'text/html: "<html> <body>Bad gateway</body> </html>"'
 */
export function describeBody(
  response: Pick<Extract<AttemptOutcome, { kind: 'response' }>, 'contentType' | 'text'>,
): string {
  const type = response.contentType ?? 'no content-type';
  const text = response.text.replace(/\s+/g, ' ').trim();
  if (text === '') return `${type}, empty`;
  const excerpt = text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text;
  return `${type}: ${JSON.stringify(excerpt)}`;
}
