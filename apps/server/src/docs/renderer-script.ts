import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const require = createRequire(import.meta.url);

/** The npm package whose standalone browser bundle renders the reference page. */
export const RENDERER_PACKAGE = '@scalar/api-reference';

/** The renderer script's file name in the build (`dist/assets/`) and in the static site. */
export const RENDERER_FILE = 'api-reference.js';

/** The renderer script: its text, its version (16 hex digits of its SHA-256), precompressed. */
export interface RendererScript {
  readonly text: string;
  readonly hash: string;
  readonly encoded: { readonly br: Buffer; readonly gzip: Buffer };
}

let cached: RendererScript | undefined;

/**
 * The renderer's standalone bundle and its encodings, made once: the built server reads what
 * `tsup.config.ts` wrote into dist/assets/ (no package, no compression at run time); the source
 * tree reads the package and compresses it here.
 *
 * @example
 * const { text, hash, encoded } = loadRendererScript(); // encoded.br: a Buffer
 */
export function loadRendererScript(): RendererScript {
  if (cached === undefined) {
    const built = fileURLToPath(new URL(`./assets/${RENDERER_FILE}`, import.meta.url));
    cached = existsSync(built)
      ? withEncodings(readFileSync(built, 'utf8'), {
          br: readFileSync(`${built}.br`),
          gzip: readFileSync(`${built}.gz`),
        })
      : encodeRendererScript(readPackageScript());
  }
  return cached;
}

/** The package's bundle (beside its main module), without its `sourceMappingURL` comment. */
export function readPackageScript(): string {
  const path = join(dirname(require.resolve(RENDERER_PACKAGE)), 'browser', 'standalone.js');
  return readFileSync(path, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
}

/** `text` with gzip 9 and brotli 9 (4.35 MB → 1.26 / 1.05 MB in 0.7 s; brotli 11 took 6 s more). */
export function encodeRendererScript(text: string): RendererScript {
  const bytes = Buffer.from(text);
  return withEncodings(text, {
    br: brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 9,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
    gzip: gzipSync(bytes, { level: 9 }),
  });
}

function withEncodings(text: string, encoded: RendererScript['encoded']): RendererScript {
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return { text, hash, encoded };
}
