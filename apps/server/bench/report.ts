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
  /** Medians of the fixed-rate windows, when measured. */
  readonly fixedRate?: {
    readonly targetRate: number;
    readonly requestsPerSecond: number;
    readonly latencyP99Ms: number;
    readonly cpuMicrosPerRequest: number;
  };
  /** Every repetition passed its checks. */
  readonly verified: boolean;
}

/** One case against a baseline case (`bare`, `fastify`) of the same run. */
export interface Comparison {
  readonly name: string;
  readonly baseline: string;
  /** Median req/s ÷ the baseline's median req/s, at saturation. */
  readonly requestsPerSecond: number;
  /** The median over repetitions of (req/s ÷ the baseline's req/s in the same repetition). */
  readonly pairedRequestsPerSecond: number;
  /** Median p99 ÷ the baseline's median p99, at saturation. */
  readonly latencyP99: number;
  /** Median server CPU per request ÷ the baseline's, at the fixed rate (NaN when not measured). */
  readonly cpuAtFixedRate: number;
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
  readonly comparisons: readonly Comparison[];
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
    const fixed = mine.flatMap((run) => (run.fixedRate === undefined ? [] : [run.fixedRate]));
    const first = fixed[0];
    return {
      name,
      repetitions: mine.length,
      requestsPerSecond: median(mine.map((run) => run.requestsPerSecond)),
      latencyP50Ms: median(mine.map((run) => run.latencyP50Ms)),
      latencyP99Ms: median(mine.map((run) => run.latencyP99Ms)),
      cpuMicrosPerRequest: median(mine.map((run) => run.cpuMicrosPerRequest)),
      clientCpuMicrosPerRequest: median(mine.map((run) => run.clientCpuMicrosPerRequest)),
      ...(first === undefined
        ? {}
        : {
            fixedRate: {
              targetRate: first.targetRate,
              requestsPerSecond: median(fixed.map((window) => window.requestsPerSecond)),
              latencyP99Ms: median(fixed.map((window) => window.latencyP99Ms)),
              cpuMicrosPerRequest: median(fixed.map((window) => window.cpuMicrosPerRequest)),
            },
          }),
      verified: mine.every((run) => run.verified),
    };
  });
}

/**
 * Every other case against each baseline present in the run (medians, and for req/s also the
 * median of the per-repetition ratios, the least disturbed by a drifting machine load).
 *
 * @example
 * compare(summarize(runs), runs, ['bare', 'fastify']);
 */
export function compare(
  summaries: readonly CaseSummary[],
  runs: readonly CaseRun[],
  baselines: readonly string[],
): Comparison[] {
  const comparisons: Comparison[] = [];
  for (const baseline of baselines) {
    const base = summaries.find((s) => s.name === baseline);
    if (base === undefined) continue;
    for (const summary of summaries) {
      if (summary.name === baseline) continue;
      const paired = runs
        .filter((run) => run.name === summary.name)
        .flatMap((run) => {
          const other = runs.find((r) => r.name === baseline && r.rep === run.rep);
          return other === undefined ? [] : [run.requestsPerSecond / other.requestsPerSecond];
        });
      comparisons.push({
        name: summary.name,
        baseline,
        requestsPerSecond: summary.requestsPerSecond / base.requestsPerSecond,
        pairedRequestsPerSecond: paired.length === 0 ? Number.NaN : median(paired),
        latencyP99: summary.latencyP99Ms / base.latencyP99Ms,
        cpuAtFixedRate:
          summary.fixedRate === undefined || base.fixedRate === undefined
            ? Number.NaN
            : summary.fixedRate.cpuMicrosPerRequest / base.fixedRate.cpuMicrosPerRequest,
      });
    }
  }
  return comparisons;
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
  const fixedRate = report.summaries.find((s) => s.fixedRate !== undefined)?.fixedRate?.targetRate;
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
    `| case | req/s | p50 ms | p99 ms | server CPU µs/req | load generator CPU µs/req |${fixedRate === undefined ? '' : ` server CPU µs/req at ${fixedRate} req/s | req/s reached |`} checks |`,
    `|---|---:|---:|---:|---:|---:|${fixedRate === undefined ? '' : '---:|---:|'}---|`,
    ...report.summaries.map(
      (s) =>
        `| ${s.name} | ${round(s.requestsPerSecond)} | ${round(s.latencyP50Ms, 2)} | ` +
        `${round(s.latencyP99Ms, 2)} | ${round(s.cpuMicrosPerRequest, 1)} | ` +
        `${round(s.clientCpuMicrosPerRequest, 1)} | ` +
        (fixedRate === undefined
          ? ''
          : `${round(s.fixedRate?.cpuMicrosPerRequest ?? Number.NaN, 1)} | ${round(s.fixedRate?.requestsPerSecond ?? Number.NaN)} | `) +
        `${s.verified ? 'ok' : 'FAILED'} |`,
    ),
    '',
  ];
  if (report.comparisons.length > 0) {
    lines.push(
      '## Against the peers',
      '',
      `| case | vs | req/s ratio | req/s ratio, per-repetition median | p99 ratio | CPU/req ratio${fixedRate === undefined ? '' : ` at ${fixedRate} req/s`} |`,
      '|---|---|---:|---:|---:|---:|',
      ...report.comparisons.map(
        (c) =>
          `| ${c.name} | ${c.baseline} | ${round(c.requestsPerSecond, 3)} | ` +
          `${round(c.pairedRequestsPerSecond, 3)} | ${round(c.latencyP99, 2)} | ${round(c.cpuAtFixedRate, 2)} |`,
      ),
      '',
    );
  }
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
    '| rep | case | req/s | p50 ms | p99 ms | CPU µs/req | CPU µs/req at fixed rate (req/s) | sent | 2xx | non-2xx | errors | rows (expected) | machine load | checks |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|',
    ...report.runs.map(
      (r) =>
        `| ${r.rep} | ${r.name} | ${round(r.requestsPerSecond)} | ${round(r.latencyP50Ms, 2)} | ` +
        `${round(r.latencyP99Ms, 2)} | ${round(r.cpuMicrosPerRequest, 1)} | ` +
        `${r.fixedRate === undefined ? '–' : `${round(r.fixedRate.cpuMicrosPerRequest, 1)} (${round(r.fixedRate.requestsPerSecond)})`} | ${r.sent} | ${r.ok} | ${r.non2xx} | ` +
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
