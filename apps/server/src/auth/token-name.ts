/** A consumer's name: a letter, then up to 63 letters, digits, `.`, `_` or `-`. */
const TOKEN_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;

/**
 * Why `name` cannot name a token's consumer, or `undefined` when it can. Names start with a
 * letter, so they never look like a token id (a number) or an env token's name (`env#1`), and
 * they are safe to print in logs.
 *
 * @example
 * tokenNameProblem('acme-mobile'); // undefined
 * tokenNameProblem('42'); // 'a token name starts with a letter …'
 */
export function tokenNameProblem(name: string): string | undefined {
  if (TOKEN_NAME.test(name)) return undefined;
  return `a token name starts with a letter and has at most 64 letters, digits, ".", "_" or "-" (got ${JSON.stringify(name)})`;
}
