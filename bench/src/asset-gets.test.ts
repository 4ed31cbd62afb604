import { expect, it } from 'vitest';
import { type AssetGetRun, renderAssetGets } from './asset-gets.ts';

const run = (rep: number, micros: number, failures: string[] = []): AssetGetRun => ({
  rep,
  rows: [
    { path: '/docs/assets/api-reference.js', encoding: 'br', bytes: 1046772, cpuMicros: micros },
  ],
  failures,
});

it('gives per file and encoding the median µs per GET over the runs, its spread and its ratio to a create', () => {
  const lines = renderAssetGets([run(1, 900), run(2, 1100), run(3, 1000)], 250);
  expect(lines).toContain(
    '| /docs/assets/api-reference.js | br | 1046772 | 1000 (900–1100) | 4.0 |',
  );
  expect(lines.join('\n')).toContain('3 fresh process(es)');
  expect(lines.join('\n')).toContain('a create (`real`, lowest rate) costs 250.0 µs');
});

it('leaves a failed run out of the figures and names it', () => {
  const lines = renderAssetGets([run(1, 1000), run(2, 99_999, ['/docs br: 404 as identity'])], 250);
  expect(lines).toContain(
    '| /docs/assets/api-reference.js | br | 1046772 | 1000 (1000–1000) | 4.0 |',
  );
  expect(lines).toContain('Asset run 2 FAILED: /docs br: 404 as identity');
});
