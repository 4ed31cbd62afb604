/** One window at a fixed offered rate. */
export interface RateWindow {
  readonly offered: number;
  /** Answered req/s. */
  readonly achieved: number;
  /** Server CPU µs per answered request. */
  readonly cpuMicros: number;
}

/** One run: one case, one repetition, in its own fresh process on a fresh SQLite file. */
export interface Run {
  readonly rep: number;
  readonly name: string;
  readonly windows: readonly RateWindow[];
  readonly saturation: { readonly rps: number; readonly p99Ms: number };
  /** Why the run's checks failed; empty when they passed. */
  readonly failures: readonly string[];
}

export interface Pair {
  readonly label: string;
  readonly num: string;
  readonly den: string;
}

/**
 * The median of `values` (the mean of the two middle ones for an even count); NaN for none.
 *
 * @example
 * median([3, 1, 2]); // 2
 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Median, min and max of the per-repetition values. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

export function spread(values: readonly number[]): Spread {
  return {
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    n: values.length,
  };
}

/**
 * `f(num run) ∘ f(den run)` for each repetition where both runs passed their checks: a ratio
 * (or difference) taken within one repetition, so drift of the machine between repetitions
 * cancels out.
 *
 * @example
 * paired(runs, 'real', 'koa', (run) => run.saturation.rps, (a, b) => a / b);
 */
export function paired(
  runs: readonly Run[],
  num: string,
  den: string,
  value: (run: Run) => number | undefined,
  combine: (a: number, b: number) => number,
): number[] {
  const passed = runs.filter((run) => run.failures.length === 0);
  const out: number[] = [];
  for (const a of passed.filter((run) => run.name === num)) {
    const b = passed.find((run) => run.name === den && run.rep === a.rep);
    const [x, y] = [value(a), b === undefined ? undefined : value(b)];
    if (x !== undefined && y !== undefined) out.push(combine(x, y));
  }
  return out;
}

const cpuAt = (offered: number) => (run: Run) =>
  run.windows.find((window) => window.offered === offered)?.cpuMicros;
const saturated = (run: Run) => run.saturation.rps;
const ratio = (a: number, b: number) => a / b;

const fixed = (value: number, digits: number) =>
  Number.isNaN(value) ? '—' : value.toFixed(digits);
const ranged = (s: Spread, digits = 2) =>
  s.n === 0 ? '—' : `${fixed(s.median, digits)} (${fixed(s.min, digits)}–${fixed(s.max, digits)})`;

export interface ReportOptions {
  readonly title: string;
  /** Lines under the title: when, where, how. */
  readonly about: readonly string[];
  readonly rates: readonly number[];
  readonly cases: readonly { readonly name: string; readonly note: string }[];
  readonly pairs: readonly Pair[];
  /** Rows of the "where the µs go" table: each case against `base`. */
  readonly ablationBase?: string;
}

/**
 * The markdown summary of a run: medians per case, the paired ratios with their spread and the
 * targets, the ablation table when asked, then every run and its checks.
 */
export function renderReport(runs: readonly Run[], options: ReportOptions): string {
  const { rates } = options;
  const rateHeads = rates.map((rate) => `CPU µs/req @ ${rate}/s`);
  const out = [`# ${options.title}`, '', ...options.about, ''];
  out.push('## Medians per case', '');
  out.push(`| case | ${rateHeads.join(' | ')} | saturation req/s | p99 ms | what runs |`);
  out.push(`|---|${rates.map(() => '---:|').join('')}---:|---:|---|`);
  for (const c of options.cases) {
    const mine = runs.filter((run) => run.name === c.name && run.failures.length === 0);
    const cpu = rates.map((rate) => fixed(median(mine.map(cpuAt(rate)).filter(isNumber)), 1));
    const rps = fixed(median(mine.map(saturated)), 0);
    const p99 = fixed(median(mine.map((run) => run.saturation.p99Ms)), 1);
    out.push(`| ${c.name} | ${cpu.join(' | ')} | ${rps} | ${p99} | ${c.note} |`);
  }
  out.push('', '## Ratios: median of paired ratios per repetition (min–max)', '');
  out.push(`| pair | ${rates.map((rate) => `CPU @ ${rate}/s`).join(' | ')} | saturation req/s |`);
  out.push(`|---|${rates.map(() => '---:|').join('')}---:|`);
  for (const pair of options.pairs) {
    const cpu = rates.map((rate) =>
      ranged(spread(paired(runs, pair.num, pair.den, cpuAt(rate), ratio))),
    );
    const rps = ranged(spread(paired(runs, pair.num, pair.den, saturated, ratio)));
    out.push(`| ${pair.label} | ${cpu.join(' | ')} | ${rps} |`);
  }
  const target = options.pairs.find((pair) => pair.num === 'real' && pair.den === 'koa');
  if (target !== undefined) {
    const cpu = rates.map((rate) => median(paired(runs, 'real', 'koa', cpuAt(rate), ratio)));
    const rps = median(paired(runs, 'real', 'koa', saturated, ratio));
    const met = (ok: boolean, value: number) =>
      Number.isNaN(value) ? 'not measured' : ok ? 'met' : 'NOT met';
    out.push(
      '',
      `Targets (issue 22): CPU per request real/koa ≤ 1.15× at every rate: ${met(
        cpu.every((v) => v <= 1.15),
        Math.max(...cpu),
      )}; saturation real/koa ≥ 0.9×: ${met(rps >= 0.9, rps)}.`,
    );
  }
  if (options.ablationBase !== undefined) {
    const base = options.ablationBase;
    out.push(
      '',
      `## Where the µs go: each case against ${base} (median of paired differences, µs/req)`,
      '',
    );
    out.push(`| case | what is off | ${rates.map((rate) => `Δ CPU @ ${rate}/s`).join(' | ')} |`);
    out.push(`|---|---|${rates.map(() => '---:|').join('')}`);
    for (const c of options.cases.filter((c) => c.name !== base)) {
      const deltas = rates.map((rate) =>
        ranged(spread(paired(runs, c.name, base, cpuAt(rate), (a, b) => a - b)), 1),
      );
      out.push(`| ${c.name} | ${c.note} | ${deltas.join(' | ')} |`);
    }
  }
  out.push('', '## Every run', '');
  out.push(
    `| rep | case | ${rates.map((rate) => `µs/req @ ${rate} (achieved req/s)`).join(' | ')} | saturation req/s | check |`,
  );
  out.push(`|---:|---|${rates.map(() => '---:|').join('')}---:|---|`);
  for (const run of runs) {
    const windows = rates.map((rate) => {
      const window = run.windows.find((w) => w.offered === rate);
      return window === undefined
        ? '—'
        : `${fixed(window.cpuMicros, 1)} (${fixed(window.achieved, 0)})`;
    });
    const check = run.failures.length === 0 ? 'ok' : `FAILED: ${run.failures.join('; ')}`;
    out.push(
      `| ${run.rep} | ${run.name} | ${windows.join(' | ')} | ${fixed(run.saturation.rps, 0)} | ${check} |`,
    );
  }
  return `${out.join('\n')}\n`;
}

function isNumber(value: number | undefined): value is number {
  return value !== undefined;
}
