import { describe, expect, it } from 'vitest';
import type { CaseRun } from './cases.ts';
import { renderMarkdown, summarize } from './report.ts';

function run(name: string, rep: number, rps: number, verified = true): CaseRun {
  return {
    name,
    rep,
    requestsPerSecond: rps,
    latencyP50Ms: rps / 1000,
    latencyP99Ms: rps / 500,
    cpuMicrosPerRequest: 100,
    clientCpuMicrosPerRequest: 50,
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
      targets: [{ name: 'ratio', goal: '≥ 0.90', value: '1.000', met: true }],
      notes: ['a note'],
      runs,
    });
    expect(markdown).toContain('| real | 1000 | 1.00 | 2.00 | 100.0 | 50.0 | FAILED |');
    expect(markdown).toContain('- real / floor req/s: **1.000**');
    expect(markdown).toContain('| ratio | ≥ 0.90 | 1.000 | yes |');
    expect(markdown).toContain('3 non-2xx answers');
  });
});
