import { readFileSync } from 'node:fs';

/** The parts of a V8 `.cpuprofile` (written by `node --cpu-prof`) this summary reads. */
interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

export interface SummaryOptions {
  /** Ignore the samples of the first `skipMs` milliseconds (start-up, warm-up). */
  readonly skipMs?: number;
  /** Ignore the samples of the last `tailMs` milliseconds (shutdown). */
  readonly tailMs?: number;
}

export interface ProfileEntry {
  readonly name: string;
  /** Share of all samples, 0..1. */
  readonly share: number;
}

export interface ProfileSummary {
  /** Self time by function (`name file:line`), largest first. */
  readonly functions: readonly ProfileEntry[];
  /** Self time by where the code lives: an npm package, the app's own code, node internals. */
  readonly places: readonly ProfileEntry[];
}

/**
 * Where a function's code lives: the npm package (`koa`, `@koa/router`), `app` for the
 * project's own code, `node` for Node's internals, or a V8 category such as `(garbage collector)`.
 */
export function placeOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const [first = '', second = ''] = url.slice(modules + '/node_modules/'.length).split('/');
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  if (url.startsWith('node:')) return 'node';
  return 'app';
}

/**
 * Self time of a CPU profile by function and by place (package), as shares of all samples.
 *
 * @example
 * const { places } = summarizeProfile(JSON.parse(readFileSync('CPU.cpuprofile', 'utf8')));
 */
export function summarizeProfile(
  profile: CpuProfile,
  options: SummaryOptions = {},
): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfTime = new Map<number, number>();
  const total = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0);
  const from = (options.skipMs ?? 0) * 1000;
  const to = total - (options.tailMs ?? 0) * 1000;
  let elapsed = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    elapsed += delta;
    if (elapsed < from || elapsed > to) return;
    selfTime.set(id, (selfTime.get(id) ?? 0) + delta);
  });
  const counted = [...selfTime.values()].reduce((sum, time) => sum + time, 0) || 1;
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  for (const [id, time] of selfTime) {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) continue;
    const file = frame.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*\/apps\//, '');
    const name = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + time);
    const place = placeOf(frame.url, frame.functionName);
    places.set(place, (places.get(place) ?? 0) + time);
  }
  const ranked = (map: Map<string, number>) =>
    [...map]
      .map(([name, time]) => ({ name, share: time / counted }))
      .sort((a, b) => b.share - a.share);
  return { functions: ranked(functions), places: ranked(places) };
}

// `node --import tsx bench/profile-summary.ts <file.cpuprofile> [top] [skipMs] [tailMs]`:
// prints both rankings.
if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top = '25', skipMs = '0', tailMs = '0'] = process.argv.slice(2);
  if (file === undefined) {
    throw new Error('usage: profile-summary.ts <file.cpuprofile> [top] [skipMs] [tailMs]');
  }
  const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, {
    skipMs: Number(skipMs),
    tailMs: Number(tailMs),
  });
  const print = (title: string, entries: readonly ProfileEntry[]) => {
    console.log(`\n${title}`);
    for (const entry of entries.slice(0, Number(top))) {
      console.log(`${(entry.share * 100).toFixed(1).padStart(6)}%  ${entry.name}`);
    }
  };
  print('self time by place', summary.places);
  print('self time by function', summary.functions);
}
