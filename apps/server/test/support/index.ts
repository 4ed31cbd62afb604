export { OpenApiResponseValidator } from './openapi-validator.ts';
export { startTestServer, type TestServer, type TestServerOptions } from './start-test-server.ts';
