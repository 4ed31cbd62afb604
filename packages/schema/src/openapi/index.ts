export {
  API_VERSION,
  buildOpenApiDocument,
  EXAMPLE_BODY_LIMIT_BYTES,
  type OpenApiDocument,
} from './document.ts';
export { serializeOpenApiDocument, serializeOpenApiYaml } from './serialize.ts';
