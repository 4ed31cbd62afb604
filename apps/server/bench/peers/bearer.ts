import { hash } from 'node:crypto';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The peers' bearer check: only the SHA-256 digests of the accepted tokens are kept, and a
 * presented token is accepted when its digest is one of them.
 *
 * @example
 * const bearer = new BearerDigests(['a-token-of-16-chars']);
 * bearer.accepts('Bearer a-token-of-16-chars'); // true
 */
export class BearerDigests {
  readonly #digests: ReadonlySet<string>;

  constructor(tokens: readonly string[]) {
    this.#digests = new Set(tokens.map((token) => hash('sha256', token, 'hex')));
  }

  /** True when `authorization` (the header's value) carries an accepted token. */
  accepts(authorization: string | undefined): boolean {
    if (authorization === undefined) return false;
    const token = BEARER.exec(authorization)?.[1];
    return token !== undefined && this.#digests.has(hash('sha256', token, 'hex'));
  }
}
