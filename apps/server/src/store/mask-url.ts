/** `url` safe to log: a `scheme://user:password@host` password and a `password` parameter → `***`. */
export function maskUrl(url: string): string {
  return url
    .replace(/^([^:/?#]+:\/\/[^:@/?#]*):[^@/?#]*@/, '$1:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***');
}
