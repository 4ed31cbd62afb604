/** The committed file's exact text for a document: 2-space JSON and a final newline. */
export function serializeOpenApiDocument(document: object): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
