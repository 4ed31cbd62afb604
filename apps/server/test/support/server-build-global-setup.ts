import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { SOURCE_ASSETS_FOLDER } from '../../src/docs/docs-assets.ts';

const APP_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Vitest global setup, once per run: the server built from the current source by its own tsup
 * config (what `pnpm build` makes and an operator runs) into a folder of this run's, which the
 * tests' processes start (`serverEntry`). A bundle starts on less CPU than `tsx src/main.ts`
 * (no TypeScript loader, one file instead of a hundred modules), and the e2e tiers start
 * hundreds of processes. A new folder per run: never a stale build, and runs side by side do
 * not share one. Inside the app's node_modules, so the bundle finds its npm dependencies.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['./test/support/server-build-global-setup.ts'] } });
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const cache = join(APP_ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const folder = mkdtempSync(join(cache, 'e2e-server-'));
  // Readable by the other uids some tests run the server as (mkdtemp makes it 0700).
  chmodSync(folder, 0o755);
  await promisify(execFile)(
    join(APP_ROOT, 'node_modules/.bin/tsup'),
    ['--out-dir', folder, '--silent'],
    { cwd: APP_ROOT },
  );
  // The API reference files where a build keeps them (`dist/assets/`), built by the docs
  // assets global setup.
  symlinkSync(SOURCE_ASSETS_FOLDER, join(folder, 'assets'));
  project.provide('serverBuild', folder);
  return () => rmSync(folder, { recursive: true, force: true });
}
