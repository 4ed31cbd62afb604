/** The Error-shape answers the peers give, with the project's status and code numbers. */
export const PEER_ERRORS = {
  validationFailed: { status: 400, code: 40001 },
  malformedJson: { status: 400, code: 40002 },
  missingBody: { status: 400, code: 40003 },
  unauthorized: { status: 401, code: 40101 },
  notFound: { status: 404, code: 40401 },
  methodNotAllowed: { status: 405, code: 40501 },
  conflict: { status: 409, code: 40901 },
  payloadTooLarge: { status: 413, code: 41301 },
  unsupportedMediaType: { status: 415, code: 41501 },
  internal: { status: 500, code: 50001 },
} as const;

export type PeerError = keyof typeof PEER_ERRORS;

/**
 * The JSON text of an Error-shape body.
 *
 * @example
 * errorBody('unauthorized', 'a valid bearer token is required'); // '{"error":40101,…}'
 */
export function errorBody(error: PeerError, message: string): string {
  return JSON.stringify({ error: PEER_ERRORS[error].code, message });
}

/** True for a `Content-Type` whose media type is `application/json` (parameters allowed). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const end = contentType.indexOf(';');
  const type = (end === -1 ? contentType : contentType.slice(0, end)).trim().toLowerCase();
  return type === 'application/json';
}

/** The body of a 200: the Plant (`name`, and `tag` when there is one). */
export function plantBody(name: string, tag: string | undefined): string {
  return tag === undefined ? JSON.stringify({ name }) : JSON.stringify({ name, tag });
}
