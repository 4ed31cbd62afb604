/**
 * `url` safe to show in messages and logs: the password of a `scheme://user:password@host`
 * URL, and a `password` query parameter, are replaced by `***`; anything else is unchanged.
 *
 * @example
 * maskUrl('postgres://app:secret@db/plants'); // 'postgres://app:***@db/plants'
 */
export function maskUrl(url: string): string {
  return url
    .replace(/^([^:/?#]+:\/\/[^:@/?#]*):[^@/?#]*@/, '$1:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***');
}
