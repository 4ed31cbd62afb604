import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TokenRegistry } from '../src/auth/token-registry.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/observability/logger.ts';
import { serviceStoreOptions } from '../src/server.ts';
import { openStore } from '../src/store/open-store.ts';
import { floorHandler } from './floor-server.ts';

// The floor as a process, configured exactly like the real server (same variables, same
// store options), printing the same "listening on" line. It logs no requests, only warnings.
const config = loadConfig();
const store = await openStore(
  config.databaseUrl,
  serviceStoreOptions(config, createLogger('warn', { destination: process.stderr })),
);
const server = createServer(
  floorHandler({
    store,
    tokens: TokenRegistry.fromTokens(config.tokens),
    bodyLimitBytes: config.bodyLimitBytes,
  }),
);
server.listen(config.port, config.host, () => {
  const { address, port } = server.address() as AddressInfo;
  console.log(`Floor server is listening on http://${address}:${port}`);
});
process.once('SIGTERM', () => {
  server.close(() => {
    store.close().then(() => process.exit(0));
  });
  server.closeIdleConnections();
});
