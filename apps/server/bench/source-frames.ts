import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A JS frame of `node --perf-basic-prof`: `JS:*name file:///…/main.js:LINE:COLUMN` (1-based). */
const JS_FRAME = /(file:\/\/\/[^\s:]+\.m?js):(\d+):(\d+)/;

/**
 * Names the source module of bundled JS frames in `perf script` output, by the bundle's
 * source map (`main.js.map` beside `main.js`): `resolve(frame)` returns the frame with
 * ` @<source path>` appended (relative to `root`), or the frame unchanged when it is not a
 * JS frame of a file with a map. A bundle's anonymous functions (`.then(() => …)`) have no
 * name to classify by; their source module does.
 *
 * @example
 * const frames = new SourceFrames('/work/main');
 * frames.resolve('JS:* file:///work/main/apps/server/dist/main.js:2728:46');
 * // 'JS:* file:///…/main.js:2728:46 @apps/server/src/http/json-body.ts'
 */
export class SourceFrames {
  readonly #root: string;
  readonly #maps = new Map<string, SourceMap | undefined>();
  readonly #resolved = new Map<string, string>();

  constructor(root: string) {
    this.#root = root;
  }

  resolve(frame: string): string {
    const known = this.#resolved.get(frame);
    if (known !== undefined) return known;
    const resolved = this.#resolveNew(frame);
    this.#resolved.set(frame, resolved);
    return resolved;
  }

  #resolveNew(frame: string): string {
    const match = JS_FRAME.exec(frame);
    if (match === null) return frame;
    const [, url = '', line = '0', column = '0'] = match;
    const map = this.#mapOf(fileURLToPath(url));
    const entry = map?.findEntry(Number(line) - 1, Number(column) - 1);
    if (entry === undefined || !('originalSource' in entry)) return frame;
    const source = entry.originalSource.startsWith('file://')
      ? fileURLToPath(entry.originalSource)
      : entry.originalSource;
    return `${frame} @${relative(this.#root, source)}`;
  }

  #mapOf(file: string): SourceMap | undefined {
    if (this.#maps.has(file)) return this.#maps.get(file);
    const mapFile = `${file}.map`;
    const map = existsSync(mapFile)
      ? new SourceMap(withAbsoluteSources(JSON.parse(readFileSync(mapFile, 'utf8')), mapFile))
      : undefined;
    this.#maps.set(file, map);
    return map;
  }
}

/** The map with its `sources` made absolute `file:` URLs (they are relative to the map). */
function withAbsoluteSources(
  payload: { sources?: string[]; sourceRoot?: string },
  mapFile: string,
): ConstructorParameters<typeof SourceMap>[0] {
  const base = new URL(payload.sourceRoot ?? '', `file://${mapFile}`);
  return {
    ...payload,
    sources: (payload.sources ?? []).map((source) => new URL(source, base).href),
  } as ConstructorParameters<typeof SourceMap>[0];
}
