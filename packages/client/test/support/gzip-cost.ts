import { gzipSync } from 'node:zlib';

/** What one input (a package, or a file outside node_modules) costs in a minified bundle. */
export interface InputCost {
  readonly input: string;
  /** The bundle's characters that its source map attributes to this input. */
  readonly minified: number;
  /** How many bytes the gzipped bundle loses when those characters are left out. */
  readonly gzipped: number;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The numbers of one source-map segment (base64 VLQ). */
function decodeSegment(segment: string): number[] {
  const numbers: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
    } else {
      numbers.push(value & 1 ? -(value >> 1) : value >> 1);
      value = 0;
      shift = 0;
    }
  }
  return numbers;
}

/** A source's input name: its package (`zod`, `@plant-store/schema`), else its path. */
export function inputOf(source: string): string {
  return /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1] ?? source;
}

/**
 * What each input of a minified bundle costs, largest gzipped cost first: the characters its
 * source map (version 3) gives each input (a mapped segment runs to the next one), and the
 * gzipped bytes the bundle loses without them. Costs overlap little but do not add up exactly
 * to the bundle's size: gzip shares repeated text between inputs.
 *
 * @example
 * gzipCosts(code, mapText); // [{ input: 'zod', minified: 12_000, gzipped: 4_000 }, …]
 */
export function gzipCosts(code: string, sourceMap: string): InputCost[] {
  const map = JSON.parse(sourceMap) as { sources: string[]; mappings: string };
  const inputs = [...new Set(map.sources.map(inputOf))];
  const inputIndex = map.sources.map((source) => inputs.indexOf(inputOf(source)));
  const owner = new Int32Array(code.length).fill(-1);
  let lineStart = 0;
  let source = 0;
  let previous: { at: number; input: number } | undefined;
  const close = (end: number) => {
    if (previous) owner.fill(previous.input, previous.at, end);
  };
  for (const line of map.mappings.split(';')) {
    let column = 0;
    for (const segment of line.split(',')) {
      if (!segment) continue;
      const fields = decodeSegment(segment);
      column += fields[0] ?? 0;
      close(lineStart + column);
      previous = undefined;
      if (fields.length < 4) continue; // text of no source
      source += fields[1] ?? 0;
      previous = { at: lineStart + column, input: inputIndex[source] ?? -1 };
    }
    const end = code.indexOf('\n', lineStart);
    lineStart = end === -1 ? code.length : end + 1;
  }
  close(code.length);
  const gzipped = (text: string) => gzipSync(text, { level: 9 }).length;
  const whole = gzipped(code);
  return inputs
    .map((input, index) => {
      let rest = '';
      let minified = 0;
      for (let at = 0; at < code.length; at += 1) {
        if (owner[at] === index) minified += 1;
        else rest += code[at];
      }
      return { input, minified, gzipped: whole - gzipped(rest) };
    })
    .filter((cost) => cost.minified > 0)
    .sort((a, b) => b.gzipped - a.gzipped);
}
