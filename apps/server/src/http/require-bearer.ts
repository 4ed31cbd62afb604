import { ERROR_MESSAGES } from '@plant-store/schema';
import type { Credential, TokenRegistry } from '../auth/token-registry.ts';
import { ApiError } from './api-error.ts';
import type { AppContext, RequestStep } from './app-state.ts';

const REALM = 'Bearer realm="plant-store"';
const NO_CREDENTIAL = { 'WWW-Authenticate': REALM };
const INVALID_TOKEN = { 'WWW-Authenticate': `${REALM}, error="invalid_token"` };
// RFC 6750 §2.1: the scheme is case-insensitive; the token is token68 syntax.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * Admits a known `Authorization: Bearer <token>` (setting `ctx.state.consumer`), else a 401 with
 * an RFC 6750 challenge.
 */
export function requireBearer(tokens: TokenRegistry): RequestStep {
  const admit = (ctx: AppContext, credential: Credential | undefined): void => {
    if (!credential)
      throw new ApiError('unauthorized', ERROR_MESSAGES.unauthorized.refused, INVALID_TOKEN);
    ctx.state.consumer = credential.name;
  };
  // A cached credential is answered at once; only a store lookup makes the check wait.
  return function checkBearer(ctx) {
    const header = ctx.get('Authorization');
    if (!/^bearer(?: |$)/i.test(header))
      throw new ApiError('unauthorized', ERROR_MESSAGES.unauthorized.missing, NO_CREDENTIAL);
    const token = BEARER.exec(header)?.[1];
    const found = token === undefined ? undefined : tokens.authenticate(token);
    if (found instanceof Promise) return found.then((credential) => admit(ctx, credential));
    admit(ctx, found);
  };
}
