export { ApiError } from './api-error.ts';
export { createApp } from './app.ts';
export { type Config, ConfigError, loadConfig } from './config.ts';
export { createLogger } from './logger.ts';
export { type RunningServer, startServer } from './server.ts';
export type { CreateOutcome, PlantStore } from './store/plant-store.ts';
export { TokenRegistry } from './token-registry.ts';
