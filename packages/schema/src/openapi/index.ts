export { API_VERSION, buildOpenApiDocument, type OpenApiDocument } from './document.ts';
export { serializeOpenApiDocument, serializeOpenApiYaml } from './serialize.ts';
