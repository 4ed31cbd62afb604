import { ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from '../api-error.ts';
import type { TokenRegistry } from '../auth/token-registry.ts';
import { addressKey } from '../limits/key.ts';
import type { RateLimits } from '../limits/rate-limits.ts';
import type { AppMiddleware } from './app-state.ts';

const REALM = 'Bearer realm="plant-store"';
const NO_CREDENTIAL = { 'WWW-Authenticate': REALM };
const INVALID_TOKEN = { 'WWW-Authenticate': `${REALM}, error="invalid_token"` };
// RFC 6750 §2.1: the scheme is case-insensitive; the token is token68 syntax.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * Admits a known `Authorization: Bearer <token>` (setting `ctx.state.consumer`), else a 401 with
 * an RFC 6750 challenge. With `limits`, each refused token counts against the client's address:
 * past its budget, a token this process does not recognise (`TokenRegistry.recognises`) is
 * answered 429 without a lookup, and a recognised one is still checked and served. No header, or
 * another scheme, or no well-formed token, is a 401 that costs no lookup and counts nothing.
 *
 * @example
 * router.post('/plants', requireBearer(tokens, limits), handler);
 */
export function requireBearer(tokens: TokenRegistry, limits?: RateLimits): AppMiddleware {
  const refused = () =>
    new ApiError('unauthorized', ERROR_MESSAGES.unauthorized.refused, INVALID_TOKEN);
  return async function checkBearer(ctx, next) {
    const header = ctx.get('Authorization');
    if (!/^bearer(?: |$)/i.test(header))
      throw new ApiError('unauthorized', ERROR_MESSAGES.unauthorized.missing, NO_CREDENTIAL);
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) throw refused();
    const address = addressKey(ctx.ip);
    limits?.refuseSpentAddress(address, () => tokens.recognises(token));
    const credential = await tokens.authenticate(token);
    if (credential === undefined) {
      await limits?.recordAuthFailure(address);
      throw refused();
    }
    ctx.state.consumer = credential.name;
    await next();
  };
}
