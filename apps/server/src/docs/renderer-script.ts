import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The npm package whose standalone browser bundle renders the reference page. */
export const RENDERER_PACKAGE = '@scalar/api-reference';

let cached: string | undefined;

/**
 * The renderer's standalone browser bundle (one self-contained script), read once from the
 * installed npm package. Its `sourceMappingURL` comment is removed: the map is not served.
 *
 * @example
 * const script = loadRendererScript(); // '(function(){…'
 */
export function loadRendererScript(): string {
  if (cached === undefined) {
    // The package exports no path to its browser bundle; it sits next to its main module.
    const main = require.resolve(RENDERER_PACKAGE);
    const file = join(dirname(main), 'browser', 'standalone.js');
    cached = readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  }
  return cached;
}
