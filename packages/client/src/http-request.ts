import type { HttpMethod, Route } from '@plant-store/schema';

/** One request, ready to send (and to send again, unchanged, on a retry). */
export interface HttpRequest {
  readonly url: string;
  readonly method: Uppercase<HttpMethod>;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  readonly timeoutMs: number;
}

/** What {@link buildHttpRequest} needs besides the route. */
export interface RequestSettings {
  readonly baseUrl: string;
  readonly token: string;
  readonly timeoutMs: number;
}

/**
 * Derives the request for `route` from the contract: method, path, the bearer credential when
 * the route requires one, and JSON headers. `body` is already-serialized JSON, or `undefined`
 * for a route without a body.
 *
 * @example
 * buildHttpRequest(contract.createPlant, settings, '{"id":1,"name":"Fern"}');
 * // { url: 'http://api.test/plants', method: 'POST', headers: { accept, content-type, authorization }, … }
 */
export function buildHttpRequest(
  route: Route,
  settings: RequestSettings,
  body: string | undefined,
): HttpRequest {
  if (route.path.includes('{')) {
    throw new TypeError(`${route.operationId}: path parameters (${route.path}) are not supported`);
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (route.auth === 'bearer') headers.authorization = `Bearer ${settings.token}`;
  return {
    url: `${settings.baseUrl.replace(/\/+$/, '')}${route.path}`,
    method: route.method.toUpperCase() as Uppercase<HttpMethod>,
    headers,
    body,
    timeoutMs: settings.timeoutMs,
  };
}
