import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The npm package whose standalone browser bundle renders the reference page. */
export const RENDERER_PACKAGE = '@scalar/api-reference';

let cached: string | undefined;

/**
 * The renderer's standalone browser bundle (one self-contained script), read once (from the
 * build's copy or the installed package: see `rendererBundlePath`). Its `sourceMappingURL` comment is removed: the map is not served.
 *
 * @example
 * const script = loadRendererScript(); // '(function(){…'
 */
export function loadRendererScript(): string {
  if (cached === undefined) {
    cached = readFileSync(rendererBundlePath(), 'utf8').replace(
      /\n\/\/# sourceMappingURL=\S+\s*$/,
      '\n',
    );
  }
  return cached;
}

/**
 * The built server (dist/) carries a copy of the bundle (tsup.config.ts puts it in
 * dist/assets/), so a production install does not need the package; the source tree reads the
 * package, where the bundle sits next to its main module (the package exports no path to it).
 */
function rendererBundlePath(): string {
  const copy = fileURLToPath(new URL('./assets/api-reference.standalone.js', import.meta.url));
  if (existsSync(copy)) return copy;
  return join(dirname(require.resolve(RENDERER_PACKAGE)), 'browser', 'standalone.js');
}
