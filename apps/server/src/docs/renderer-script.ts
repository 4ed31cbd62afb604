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

/** The renderer script, ready to send: its bytes as they are and precompressed. */
export interface RendererScript {
  /** The script's text (its `sourceMappingURL` comment removed: the map is not served). */
  readonly text: string;
  /** The first 16 hex digits of the script's SHA-256: its version, in URLs and file names. */
  readonly hash: string;
  /** The same bytes, compressed per `Content-Encoding`. */
  readonly encoded: { readonly br: Buffer; readonly gzip: Buffer };
}

let cached: RendererScript | undefined;

/**
 * The renderer's standalone browser bundle (one self-contained script) with its gzip and
 * brotli encodings, made once. The built server reads the files `tsup.config.ts` wrote into
 * dist/assets/ (compressed there, so a production install needs neither the package nor the
 * CPU at run time); the source tree reads the package and compresses it here.
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

/**
 * The package's bundle, without its `sourceMappingURL` comment. It sits next to the package's
 * main module (the package exports no path to it).
 */
export function readPackageScript(): string {
  const path = join(dirname(require.resolve(RENDERER_PACKAGE)), 'browser', 'standalone.js');
  return readFileSync(path, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
}

/**
 * `text` with its gzip (level 9) and brotli (quality 9) encodings: 4.35 MB → 1.26 / 1.05 MB in
 * about 0.7 s. Brotli's quality 11 would save another 0.1 MB for 6 s more on every build.
 */
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
