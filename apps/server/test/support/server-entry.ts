import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of this run's server build (`main.js`, `cli.js`): provided by server-build-global-setup.ts. */
    serverBuild: string;
  }
}

/**
 * The built entry point (`main` the server, `cli` the `plant-store` tool) of this run's server
 * build (`server-build-global-setup.ts`), for a test to start as a process with `node`.
 *
 * @example
 * spawn(process.execPath, [serverEntry('main')], { env });
 */
export function serverEntry(entry: 'main' | 'cli'): string {
  const folder = inject('serverBuild');
  const file = folder === undefined ? '' : join(folder, `${entry}.js`);
  if (!existsSync(file)) {
    throw new Error(
      `no server build (${file || 'serverBuild not provided'}): add ./test/support/server-build-global-setup.ts to this vitest project's globalSetup`,
    );
  }
  return file;
}
