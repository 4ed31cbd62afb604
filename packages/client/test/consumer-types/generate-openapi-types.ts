import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/**
 * The TypeScript types an outside consumer generates from the published OpenAPI document
 * with `openapi-typescript` and its default options (so int64 ids are `number`).
 *
 * @example
 * const text = await generateOpenApiTypes(document);
 * // 'export interface paths { "/plants": { … } } …'
 */
export async function generateOpenApiTypes(document: object): Promise<string> {
  const nodes = await openapiTS(structuredClone(document) as Parameters<typeof openapiTS>[0]);
  return `${COMMENT_HEADER}${astToString(nodes)}`;
}
