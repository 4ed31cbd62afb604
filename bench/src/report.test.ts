import { describe, expect, it } from 'vitest';
import { badBodyTable, median, paired, type Run, renderReport } from './report.ts';

const run = (
  rep: number,
  name: string,
  cpu: number,
  rps: number,
  failures: string[] = [],
): Run => ({
  rep,
  name,
  windows: [{ offered: 1000, achieved: 1000, cpuMicros: cpu }],
  saturation: { rps, p99Ms: 10 },
  failures,
});

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe('paired', () => {
  it('combines the two cases of the same repetition, skipping failed runs', () => {
    const runs = [
      run(1, 'real', 120, 900),
      run(1, 'koa', 100, 1000),
      run(2, 'koa', 50, 1000),
      run(2, 'real', 100, 1000),
      run(3, 'real', 100, 1000, ['3 non-2xx answers']),
      run(3, 'koa', 100, 1000),
    ];
    expect(
      paired(
        runs,
        'real',
        'koa',
        (r) => r.windows[0]?.cpuMicros,
        (a, b) => a / b,
      ),
    ).toEqual([1.2, 2]);
    expect(
      paired(
        runs,
        'real',
        'koa',
        (r) => r.saturation.rps,
        (a, b) => a - b,
      ),
    ).toEqual([-100, 0]);
  });
});

describe('renderReport', () => {
  const runs = [
    run(1, 'real', 110, 950),
    run(1, 'koa', 100, 1000),
    run(2, 'koa', 100, 1000),
    run(2, 'real', 130, 800),
    run(3, 'real', 120, 900),
    run(3, 'koa', 100, 1000),
  ];
  const options = {
    title: 'T',
    about: [],
    rates: [1000],
    cases: [
      { name: 'real', note: 'server' },
      { name: 'koa', note: 'target' },
    ],
    pairs: [{ label: 'real / koa', num: 'real', den: 'koa' }],
  };

  it('gives medians per case, the paired ratio with its spread, and the targets', () => {
    const text = renderReport(runs, options);
    expect(text).toContain('| real | 120.0 | 900 | 10.0 | server |');
    expect(text).toContain('| real / koa | 1.20 (1.10–1.30) | 0.90 (0.80–0.95) |');
    expect(text).toContain('≤ 1.15× at every rate: NOT met; saturation real/koa ≥ 0.9×: met.');
  });

  it('marks a failed run and leaves it out of the ratios', () => {
    const failed = [...runs.slice(0, 5), run(3, 'koa', 100, 1000, ['7 connection errors'])];
    const text = renderReport(failed, options);
    expect(text).toContain('| 3 | koa | 100.0 (1000) | 1000 | FAILED: 7 connection errors |');
    expect(text).toContain('| real / koa | 1.20 (1.10–1.30) | 0.88 (0.80–0.95) |');
  });

  it('names each window that did not reach 90 % of its offered rate', () => {
    expect(renderReport(runs, options)).toContain('offered rate: none.');
    const slow: Run = {
      ...run(4, 'real', 100, 900),
      windows: [{ offered: 1000, achieved: 899, cpuMicros: 100 }],
    };
    expect(renderReport([...runs, slow], options)).toContain(
      'Windows under 90 % of their offered rate: rep 4 real @ 1000 (899).',
    );
  });

  it('gives the ablation as paired differences against the base case', () => {
    const text = renderReport(runs, { ...options, ablationBase: 'koa' });
    expect(text).toContain('| real | server | 20.0 (10.0–30.0) |');
  });
});

describe('badBodyTable', () => {
  it('sets each bad body beside the create of the same run, median of the ratios', () => {
    const withBad = (rep: number, create: number, keys: number): Run => ({
      ...run(rep, 'real', 100, 1000),
      badBodies: [
        { name: 'valid create', cpuMicros: create },
        { name: 'many keys', cpuMicros: keys },
      ],
    });
    const table = badBodyTable(
      [withBad(1, 100, 200), withBad(2, 200, 300), withBad(3, 100, 250)],
      [{ name: 'real' }],
    ).join('\n');
    expect(table).toContain('| real | valid create | 100.0 | 1.00 (1.00–1.00) |');
    expect(table).toContain('| real | many keys | 250.0 | 2.00 (1.50–2.50) |');
  });

  it('is left out when no run measured bad bodies', () => {
    expect(badBodyTable([run(1, 'real', 100, 1000)], [{ name: 'real' }])).toEqual([]);
  });
});
