import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Whether the module at `moduleUrl` is the program Node was started with (`node dist/main.js`,
 * `node dist/main`, a symlink to it, tsx), not a module something imported.
 *
 * @example
 * if (runsAsProgram(import.meta.url)) await main();
 */
export function runsAsProgram(moduleUrl: string, entry = process.argv[1]): boolean {
  return (
    entry !== undefined && createRequire(moduleUrl).resolve(entry) === fileURLToPath(moduleUrl)
  );
}
