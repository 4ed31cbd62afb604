export {
  API_VERSION,
  buildOpenApiDocument,
  EXAMPLE_BODY_LIMIT_BYTES,
  EXAMPLE_REQUEST_TIMEOUT_SECONDS,
  type OpenApiDocument,
} from './document.ts';
export { serializeOpenApiDocument, serializeOpenApiYaml } from './serialize.ts';
