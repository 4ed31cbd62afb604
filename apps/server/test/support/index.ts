export { type HeadlessChromium, launchChromium } from './chromium.ts';
export { fixtureContract, fixtureHandlers } from './fixture-contract.ts';
export { contractApp, inProcessFetch } from './in-process.ts';
export { OpenApiResponseValidator } from './openapi-validator.ts';
export { readPlantRows } from './read-plant-rows.ts';
export { spawnServer } from './spawn-server.ts';
export { startTestServer, type TestServer, type TestServerOptions } from './start-test-server.ts';
export { createTestApp, type TestApp, type TestAppOptions } from './test-app.ts';
