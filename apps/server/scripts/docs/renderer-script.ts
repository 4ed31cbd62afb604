import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The npm package whose standalone browser bundle renders the reference page. */
export const RENDERER_PACKAGE = '@scalar/api-reference';

/**
 * The package's bundle (beside its main module), without its `sourceMappingURL` comment. Read
 * at build only (`build-docs-assets.ts`): the production install has no such package.
 */
export function readPackageScript(): string {
  const path = join(dirname(require.resolve(RENDERER_PACKAGE)), 'browser', 'standalone.js');
  return readFileSync(path, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
}
