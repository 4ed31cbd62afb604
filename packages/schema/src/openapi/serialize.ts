import { stringify as stringifyLossless } from 'lossless-json';
import { stringify } from 'yaml';

/**
 * The committed file's exact text for a document: 2-space JSON and a final newline. Written
 * with lossless-json, so a `bigint` (the int64 bounds of `id`) is an exact JSON integer, which
 * `JSON.stringify` cannot write.
 */
export function serializeOpenApiDocument(document: object): string {
  return `${stringifyLossless(document, null, 2)}\n`;
}

/**
 * The committed `openapi.yaml` text for a document: the same content as the JSON file, as
 * YAML 1.2 with no anchors or aliases and no line folding (so every tool reads it the same).
 *
 * @example
 * serializeOpenApiYaml({ openapi: '3.1.0' }); // "openapi: 3.1.0\n"
 */
export function serializeOpenApiYaml(document: object): string {
  return stringify(document, { aliasDuplicateObjects: false, lineWidth: 0 });
}
