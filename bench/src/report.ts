/** One run: one case, one repetition, in its own fresh process on a fresh SQLite file. */
export interface Run {
  readonly rep: number;
  readonly name: string;
  /** Per fixed offered rate: the answered req/s and the server's CPU µs per answered request. */
  readonly windows: readonly { offered: number; achieved: number; cpuMicros: number }[];
  readonly saturation: { readonly rps: number; readonly p99Ms: number };
  /** On a server build: a create and each bad body at one rate, server CPU µs per request. */
  readonly badBodies?: readonly { readonly name: string; readonly cpuMicros: number }[];
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
  if (sorted.length % 2 === 1) return sorted[middle] as number;
  return sorted.length === 0
    ? Number.NaN
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * `combine(value(num run), value(den run))` for each repetition where both runs passed their
 * checks: a ratio (or difference) within one repetition, so the machine's drift between
 * repetitions cancels out.
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
  return passed.flatMap((a) => {
    const b = passed.find((run) => run.name === den && run.rep === a.rep);
    const [x, y] = [a.name === num ? value(a) : undefined, b && value(b)];
    return x === undefined || y === undefined ? [] : [combine(x, y)];
  });
}

const cpuAt = (offered: number) => (run: Run) =>
  run.windows.find((window) => window.offered === offered)?.cpuMicros;
const saturated = (run: Run) => run.saturation.rps;
const ratio = (a: number, b: number) => a / b;
const fixed = (value: number, digits: number) =>
  Number.isNaN(value) ? '—' : value.toFixed(digits);
/** `median (min–max)` of per-repetition values. */
const ranged = (values: readonly number[], digits = 2) =>
  values.length === 0
    ? '—'
    : `${fixed(median(values), digits)} (${fixed(Math.min(...values), digits)}–${fixed(Math.max(...values), digits)})`;

export interface ReportOptions {
  readonly title: string;
  /** Lines under the title: when, where, how. */
  readonly about: readonly string[];
  readonly rates: readonly number[];
  readonly cases: readonly { readonly name: string; readonly note: string }[];
  readonly pairs: readonly Pair[];
  /** With it, a "where the µs go" table: each case's CPU against this one's. */
  readonly ablationBase?: string;
}

/**
 * The markdown summary of a run: medians per case, the paired ratios with their spread and the
 * targets, the ablation table when asked, then every run and its checks.
 */
export function renderReport(runs: readonly Run[], options: ReportOptions): string {
  const { rates } = options;
  const columns = (head: (rate: number) => string) => rates.map(head).join(' | ');
  const right = rates.map(() => '---:|').join('');
  const out = [`# ${options.title}`, '', ...options.about, '', '## Medians per case', ''];
  out.push(
    `| case | ${columns((r) => `CPU µs/req @ ${r}/s`)} | saturation req/s | p99 ms | what runs |`,
  );
  out.push(`|---|${right}---:|---:|---|`);
  for (const c of options.cases) {
    const mine = runs.filter((run) => run.name === c.name && run.failures.length === 0);
    const cpu = columns((rate) => fixed(median(mine.flatMap((run) => cpuAt(rate)(run) ?? [])), 1));
    const p99 = fixed(median(mine.map((run) => run.saturation.p99Ms)), 1);
    out.push(
      `| ${c.name} | ${cpu} | ${fixed(median(mine.map(saturated)), 0)} | ${p99} | ${c.note} |`,
    );
  }
  out.push('', '## Ratios: median of paired ratios per repetition (min–max)', '');
  out.push(`| pair | ${columns((r) => `CPU @ ${r}/s`)} | saturation req/s |`, `|---|${right}---:|`);
  for (const { label, num, den } of options.pairs) {
    const cpu = columns((rate) => ranged(paired(runs, num, den, cpuAt(rate), ratio)));
    out.push(`| ${label} | ${cpu} | ${ranged(paired(runs, num, den, saturated, ratio))} |`);
  }
  if (options.pairs.some((pair) => pair.num === 'real' && pair.den === 'koa')) {
    const cpu = Math.max(
      ...rates.map((rate) => median(paired(runs, 'real', 'koa', cpuAt(rate), ratio))),
    );
    const rps = median(paired(runs, 'real', 'koa', saturated, ratio));
    const met = (ok: boolean, value: number) =>
      Number.isNaN(value) ? 'not measured' : ok ? 'met' : 'NOT met';
    out.push(
      '',
      `Targets: CPU per request real/koa ≤ 1.15× at every rate: ${met(cpu <= 1.15, cpu)}; saturation real/koa ≥ 0.9×: ${met(rps >= 0.9, rps)}.`,
    );
  }
  const base = options.ablationBase;
  if (base !== undefined) {
    out.push(
      '',
      `## Where the µs go: each case against ${base} (median of paired differences, µs/req)`,
      '',
    );
    out.push(`| case | what is off | ${columns((r) => `Δ CPU @ ${r}/s`)} |`, `|---|---|${right}`);
    for (const c of options.cases.filter((c) => c.name !== base)) {
      const deltas = columns((rate) =>
        ranged(
          paired(runs, c.name, base, cpuAt(rate), (a, b) => a - b),
          1,
        ),
      );
      out.push(`| ${c.name} | ${c.note} | ${deltas} |`);
    }
  }
  out.push(...badBodyTable(runs, options.cases));
  out.push('', '## Every run', '');
  out.push(
    `| rep | case | ${columns((r) => `µs/req @ ${r} (achieved req/s)`)} | saturation req/s | check |`,
  );
  out.push(`|---:|---|${right}---:|---|`);
  for (const run of runs) {
    const windows = columns((rate) => {
      const w = run.windows.find((window) => window.offered === rate);
      return w === undefined ? '—' : `${fixed(w.cpuMicros, 1)} (${fixed(w.achieved, 0)})`;
    });
    const check = run.failures.length === 0 ? 'ok' : `FAILED: ${run.failures.join('; ')}`;
    out.push(
      `| ${run.rep} | ${run.name} | ${windows} | ${fixed(run.saturation.rps, 0)} | ${check} |`,
    );
  }
  // A window the load did not reach measured another rate than its column says.
  const missed = runs.flatMap((run) =>
    run.windows
      .filter((w) => w.achieved < 0.9 * w.offered)
      .map((w) => `rep ${run.rep} ${run.name} @ ${w.offered} (${fixed(w.achieved, 0)})`),
  );
  out.push(
    '',
    `Windows under 90 % of their offered rate: ${missed.length === 0 ? 'none' : missed.join(', ')}.`,
  );
  return `${out.join('\n')}\n`;
}

/** The dripped creates' rows, and the row they are set beside (bad-bodies.ts). */
const DRIP_PREFIX = '60 KB create, ';
const ONE_WRITE = '60 KB create, one write, a connection of its own';

/**
 * Per server build, the CPU of each bad body (about 64 KB, answered 400) beside a
 * valid create sent at the same rate in the same process: the median µs per request, and the
 * median of the per-run ratios to the create (target ≤ 3×). Empty when no run measured them.
 */
export function badBodyTable(
  runs: readonly Run[],
  cases: readonly { readonly name: string }[],
): string[] {
  const measured = runs.filter((run) => run.failures.length === 0 && run.badBodies);
  if (measured.length === 0) return [];
  const out = [
    '',
    '## Bad bodies: server CPU per request beside a create (target: ≤ 3×)',
    '',
    '| case | body | CPU µs/req | × create |',
    '|---|---|---:|---:|',
  ];
  for (const c of cases) {
    const mine = measured.filter((run) => run.name === c.name);
    const names = mine[0]?.badBodies?.map((row) => row.name) ?? [];
    for (const name of names) {
      const cpu = (run: Run) => run.badBodies?.find((row) => row.name === name)?.cpuMicros;
      // A dripped create is set beside the same create sent at once on a connection of its own.
      const base = name.startsWith(DRIP_PREFIX) ? ONE_WRITE : undefined;
      const ratios = mine.flatMap((run) => {
        const create =
          base === undefined ? run.badBodies?.[0] : run.badBodies?.find((row) => row.name === base);
        const own = cpu(run);
        if (create?.cpuMicros === undefined) return [];
        return own === undefined ? [] : [own / create.cpuMicros];
      });
      const micros = fixed(median(mine.flatMap((run) => cpu(run) ?? [])), 1);
      out.push(`| ${c.name} | ${name} | ${micros} | ${ranged(ratios)} |`);
    }
  }
  return out;
}
