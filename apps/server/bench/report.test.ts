import { describe, expect, it } from 'vitest';
import type { CaseRun } from './cases.ts';
import { compare, renderMarkdown, summarize } from './report.ts';

function run(name: string, rep: number, rps: number, verified = true, fixedCpu = 100): CaseRun {
  return {
    name,
    kind: 'real',
    rep,
    requestsPerSecond: rps,
    latencyP50Ms: rps / 1000,
    latencyP99Ms: rps / 500,
    cpuMicrosPerRequest: 100,
    clientCpuMicrosPerRequest: 50,
    fixedRate: {
      targetRate: 4000,
      requestsPerSecond: 3990,
      latencyP50Ms: 1,
      latencyP99Ms: 3,
      cpuMicrosPerRequest: fixedCpu,
      clientCpuMicrosPerRequest: 40,
    },
    sent: 10,
    ok: 10,
    non2xx: 0,
    errors: 0,
    storedRows: 10,
    expectedRows: 10,
    requestLogLines: -1,
    verified,
    problems: verified ? [] : ['3 non-2xx answers'],
    loadBefore: 1,
    loadAfter: 2,
  };
}

describe('bench report', () => {
  const runs = [run('real', 1, 900), run('floor', 1, 1000), run('real', 2, 1100, false)];

  it('summarizes each case by the median of its repetitions', () => {
    const [real, floor] = summarize(runs);
    expect(real).toMatchObject({ name: 'real', repetitions: 2, requestsPerSecond: 1000 });
    expect(real?.verified).toBe(false);
    expect(floor).toMatchObject({ name: 'floor', repetitions: 1, verified: true });
  });

  it('renders the medians, ratios, targets and failed checks as Markdown', () => {
    const markdown = renderMarkdown({
      title: 'Bench',
      date: '2026-01-01',
      command: 'pnpm bench',
      machine: { cpus: 2, model: 'cpu', node: 'v20', platform: 'linux' },
      settings: { connections: 50 },
      summaries: summarize(runs),
      ratios: { 'real / floor req/s': 1 },
      comparisons: compare(summarize(runs), runs, ['floor']),
      targets: [{ name: 'ratio', goal: '≥ 0.90', value: '1.000', met: true }],
      notes: ['a note'],
      runs,
    });
    expect(markdown).toContain(
      '| real | 1000 | 1.00 | 2.00 | 100.0 | 50.0 | 100.0 | 3990 | FAILED |',
    );
    expect(markdown).toContain('| real | floor | 1.000 | 0.900 | 1.00 | 1.00 |');
    expect(markdown).toContain('- real / floor req/s: **1.000**');
    expect(markdown).toContain('| ratio | ≥ 0.90 | 1.000 | yes |');
    expect(markdown).toContain('3 non-2xx answers');
  });

  it('compares every case with each baseline: medians, per-repetition req/s, CPU at the fixed rate', () => {
    const pairs = [
      run('bare', 1, 1000, true, 30),
      run('real', 1, 400, true, 75),
      run('bare', 2, 2000, true, 30),
      run('real', 2, 1000, true, 75),
      run('bare', 3, 1500, true, 50),
      run('real', 3, 600, true, 60),
    ];
    const [real] = compare(summarize(pairs), pairs, ['bare', 'missing']);
    expect(compare(summarize(pairs), pairs, ['bare', 'missing'])).toHaveLength(1);
    expect(real?.name).toBe('real');
    expect(real?.requestsPerSecond).toBeCloseTo(600 / 1500);
    expect(real?.pairedRequestsPerSecond).toBeCloseTo(0.4);
    expect(real?.latencyP99).toBeCloseTo(1.2 / 3);
    expect(real?.cpuAtFixedRate).toBeCloseTo(75 / 30);
  });
});
