import { describe, expect, it } from 'vitest';
import { gzipCosts, inputOf } from './gzip-cost.ts';

// A bundle of three lines: the first from a zod file, the second from another zod file, the
// third from the app's own entry. `AAAA` maps to source 0; `ACAA` moves to the next source.
const repeated = 'x'.repeat(600);
let seed = 1;
const varied = Array.from({ length: 600 }, () => {
  seed = (seed * 48_271) % 2_147_483_647; // a Lehmer generator: text gzip cannot shorten much
  return String.fromCharCode(33 + (seed % 90));
});
const code = `${repeated}\n${varied.join('')}\nmain();`;
const sourceMap = JSON.stringify({
  version: 3,
  sources: ['../node_modules/zod/v4/core/a.js', '../node_modules/zod/v4/core/b.js', 'app.mjs'],
  mappings: 'AAAA;ACAA;ACAA',
});

describe('gzipCosts', () => {
  const costs = gzipCosts(code, sourceMap);

  it('gives each input the characters its source map gives it, one package as one input', () => {
    expect(costs.map(({ input, minified }) => [input, minified]).sort()).toEqual([
      ['app.mjs', 7],
      ['zod', 1202],
    ]);
  });

  it('prices an input by the gzipped bytes the bundle loses without it', () => {
    const [zod, app] = costs;
    expect(zod?.input).toBe('zod');
    // The varied line barely compresses; the app's 7 characters cost a few bytes.
    expect(zod?.gzipped).toBeGreaterThan(500);
    expect(app?.gzipped).toBeGreaterThan(0);
    expect(app?.gzipped).toBeLessThan(20);
  });

  it('leaves unmapped text to no input', () => {
    const unmapped = gzipCosts('kept();dropped();', '{"sources":["a.js"],"mappings":"AAAA,O"}');
    expect(unmapped).toEqual([{ input: 'a.js', minified: 7, gzipped: expect.any(Number) }]);
  });
});

describe('inputOf', () => {
  it('names a package file by its package, scoped or not, and any other file by its path', () => {
    expect(inputOf('node_modules/@plant-store/schema/dist/shapes.js')).toBe('@plant-store/schema');
    expect(inputOf('../../node_modules/.pnpm/ufo@1.6.4/node_modules/ufo/dist/index.mjs')).toBe(
      'ufo',
    );
    expect(inputOf('browser.mjs')).toBe('browser.mjs');
  });
});
