import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The npm package whose standalone browser bundle renders the reference page. */
export const RENDERER_PACKAGE = '@scalar/api-reference';

/**
 * The package's browser bundle, the file its package.json names in `browser` (what a script
 * tag loads), without its `sourceMappingURL` comment. Read at build only
 * (`build-docs-assets.ts`): the production install has no such package.
 */
export function readPackageScript(): string {
  const root = packageRoot(require.resolve(RENDERER_PACKAGE));
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    browser?: unknown;
  };
  if (typeof manifest.browser !== 'string') {
    throw new Error(`${RENDERER_PACKAGE} names no browser bundle in its package.json`);
  }
  const script = readFileSync(join(root, manifest.browser), 'utf8');
  return script.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
}

/** The folder of the package.json above `file` that names the renderer package. */
function packageRoot(file: string): string {
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    try {
      const { name } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
      if (name === RENDERER_PACKAGE) return folder;
    } catch {} // no package.json here
  }
  throw new Error(`no package.json of ${RENDERER_PACKAGE} above ${file}`);
}
