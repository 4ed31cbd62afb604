import { closeSync, openSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * Where `--out` puts the report. A bare name (no `/`, no `.md`) goes into `results/` with `.md` added, as
 * before; anything else is a path, absolute or relative to the directory the user typed the
 * command in: pnpm runs the bench in `bench/` and passes that directory as `INIT_CWD`.
 *
 * @example
 * outPath('price', { benchDir: '/repo/bench', cwd: '/repo/bench' }); // '/repo/bench/results/price.md'
 * outPath('foo.md', { benchDir: '/repo/bench', cwd: '/repo/bench', initCwd: '/home/me' }); // '/home/me/foo.md'
 */
export function outPath(
  out: string,
  where: { readonly benchDir: string; readonly cwd: string; readonly initCwd?: string | undefined },
): string {
  if (!out.includes('/') && !out.endsWith('.md'))
    return join(where.benchDir, 'results', `${out}.md`);
  return isAbsolute(out) ? out : resolve(where.initCwd || where.cwd, out);
}

/**
 * Throws, with what to do, unless a report can be written at `path`: its directory exists and
 * takes a new file (tried with a file of its own, removed at once), and `path` is not a
 * directory. Called before the run, so a run's figures are never lost to a bad `--out`.
 */
export function checkWritable(path: string): void {
  const directory = dirname(path);
  const dir = statSync(directory, { throwIfNoEntry: false });
  if (dir === undefined)
    throw new Error(`--out ${path}: the directory ${directory} does not exist`);
  if (!dir.isDirectory()) throw new Error(`--out ${path}: ${directory} is not a directory`);
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`--out ${path}: that is a directory; give a file name`);
  }
  const trial = join(directory, `.${basename(path)}.${process.pid}.tmp`);
  try {
    closeSync(openSync(trial, 'wx'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new Error(`--out ${path}: cannot write in ${directory} (${code})`);
  }
  unlinkSync(trial);
}
