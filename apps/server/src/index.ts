export { createApp } from './app.ts';
export { TokenRegistry } from './auth/token-registry.ts';
export { type Config, ConfigError, loadConfig } from './config.ts';
export { ApiError } from './http/api-error.ts';
export { createLogger } from './observability/logger.ts';
export { type RunningServer, startServer } from './server.ts';
export type { CreateOutcome, PlantStore } from './store/plant-store.ts';
