import { stringify } from 'yaml';

/** The committed file's exact text for a document: 2-space JSON and a final newline. */
export function serializeOpenApiDocument(document: object): string {
  return `${JSON.stringify(document, null, 2)}\n`;
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
