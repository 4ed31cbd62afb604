import type { CaseRun } from './cases.ts';
import { median } from './stats.ts';

/** Medians over the repetitions of one case. */
export interface CaseSummary {
  readonly name: string;
  readonly repetitions: number;
  readonly requestsPerSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly cpuMicrosPerRequest: number;
  readonly clientCpuMicrosPerRequest: number;
  /** Every repetition passed its checks. */
  readonly verified: boolean;
}

export interface Target {
  readonly name: string;
  readonly goal: string;
  readonly value: string;
  readonly met: boolean;
}

export interface BenchReport {
  readonly title: string;
  readonly date: string;
  readonly command: string;
  readonly machine: { cpus: number; model: string; node: string; platform: string };
  readonly settings: Record<string, unknown>;
  readonly summaries: readonly CaseSummary[];
  readonly ratios: Readonly<Record<string, number>>;
  readonly targets: readonly Target[];
  readonly notes: readonly string[];
  readonly runs: readonly CaseRun[];
}

/**
 * Medians of each case's repetitions, in the order the cases first appear in `runs`.
 *
 * @example
 * summarize(runs).find((s) => s.name === 'real')?.requestsPerSecond;
 */
export function summarize(runs: readonly CaseRun[]): CaseSummary[] {
  const names = [...new Set(runs.map((run) => run.name))];
  return names.map((name) => {
    const mine = runs.filter((run) => run.name === name);
    return {
      name,
      repetitions: mine.length,
      requestsPerSecond: median(mine.map((run) => run.requestsPerSecond)),
      latencyP50Ms: median(mine.map((run) => run.latencyP50Ms)),
      latencyP99Ms: median(mine.map((run) => run.latencyP99Ms)),
      cpuMicrosPerRequest: median(mine.map((run) => run.cpuMicrosPerRequest)),
      clientCpuMicrosPerRequest: median(mine.map((run) => run.clientCpuMicrosPerRequest)),
      verified: mine.every((run) => run.verified),
    };
  });
}

const round = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toFixed(digits) : String(value);

/**
 * The report as Markdown: the medians table, ratios, targets, the repetitions and the notes.
 *
 * @example
 * writeFileSync('bench/results/latest.md', renderMarkdown(report));
 */
export function renderMarkdown(report: BenchReport): string {
  const lines: string[] = [
    `# ${report.title}`,
    '',
    `Measured ${report.date} with \`${report.command}\` on ${report.machine.cpus} × ${report.machine.model}, ` +
      `Node ${report.machine.node} (${report.machine.platform}); the load generator (autocannon) ` +
      'runs in its own process on the same cores.',
    '',
    `Settings: ${Object.entries(report.settings)
      .map(([key, value]) => `${key} ${String(value)}`)
      .join(', ')}.`,
    '',
    '## Medians',
    '',
    '| case | req/s | p50 ms | p99 ms | server CPU µs/req | load generator CPU µs/req | checks |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...report.summaries.map(
      (s) =>
        `| ${s.name} | ${round(s.requestsPerSecond)} | ${round(s.latencyP50Ms, 2)} | ` +
        `${round(s.latencyP99Ms, 2)} | ${round(s.cpuMicrosPerRequest, 1)} | ` +
        `${round(s.clientCpuMicrosPerRequest, 1)} | ${s.verified ? 'ok' : 'FAILED'} |`,
    ),
    '',
  ];
  const ratios = Object.entries(report.ratios);
  if (ratios.length > 0) {
    lines.push('## Ratios', '');
    for (const [name, value] of ratios) lines.push(`- ${name}: **${round(value, 3)}**`);
    lines.push('');
  }
  if (report.targets.length > 0) {
    lines.push('## Targets', '', '| target | goal | measured | met |', '|---|---|---|---|');
    for (const t of report.targets) {
      lines.push(`| ${t.name} | ${t.goal} | ${t.value} | ${t.met ? 'yes' : 'NO'} |`);
    }
    lines.push('');
  }
  lines.push(
    '## Repetitions (interleaved)',
    '',
    '| rep | case | req/s | p50 ms | p99 ms | CPU µs/req | sent | 2xx | non-2xx | errors | rows (expected) | machine load | checks |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|',
    ...report.runs.map(
      (r) =>
        `| ${r.rep} | ${r.name} | ${round(r.requestsPerSecond)} | ${round(r.latencyP50Ms, 2)} | ` +
        `${round(r.latencyP99Ms, 2)} | ${round(r.cpuMicrosPerRequest, 1)} | ${r.sent} | ${r.ok} | ${r.non2xx} | ` +
        `${r.errors} | ${r.storedRows} (${r.expectedRows}) | ${round(r.loadBefore, 1)} → ${round(r.loadAfter, 1)} | ` +
        `${r.verified ? 'ok' : r.problems.join('; ')} |`,
    ),
    '',
  );
  if (report.notes.length > 0) {
    lines.push('## Notes', '', ...report.notes.map((note) => `- ${note}`), '');
  }
  return lines.join('\n');
}
