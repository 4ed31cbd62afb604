import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// What the tests that follow a recipe of the docs share: the recipe's numbered steps read from
// its section, a copy of the repository to follow them in, each step's edits applied there, and
// the commands the steps name run there. Node's own modules only: the packages' tests that
// import it resolve nothing from this folder.

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One numbered step of a recipe: its text (on one line), the files and the commands it names. */
export interface RecipeStep {
  readonly number: number;
  readonly text: string;
  /** Each code span that is a repository path (`.changeset/<name>.md` included). */
  readonly files: string[];
  /** Each code span that runs something (`npx …`, `cd … && …`). */
  readonly commands: string[];
}

/** The text under `heading` in `markdown`, up to the next heading of its level or above. */
export function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no heading ${JSON.stringify(heading)}`);
  const level = (text: string) => /^(#+) /.exec(text)?.[1]?.length ?? Number.POSITIVE_INFINITY;
  const end = lines.findIndex((line, at) => at > start && level(line) <= level(heading));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The numbered steps under `heading` in the repository's file `file`, in order. */
export function readRecipe(file: string, heading: string): RecipeStep[] {
  const texts = new Map<number, string>();
  let current = 0;
  for (const line of section(readFileSync(join(ROOT, file), 'utf8'), heading).split('\n')) {
    const start = /^(\d+)\. (.*)$/.exec(line);
    if (start) {
      current = Number(start[1]);
      texts.set(current, start[2] ?? '');
    } else if (current > 0 && /^ {3}\S/.test(line)) {
      texts.set(current, `${texts.get(current)} ${line.trim()}`);
    } else if (line.trim() !== '') {
      current = 0;
    }
  }
  return [...texts].map(([number, text]) => {
    // Single-backtick spans; a ``…`` span (a table row, say) names neither a file nor a command.
    const spans = [...text.matchAll(/(?<!`)`([^`]+)`(?!`)/g)].map((span) => span[1] ?? '');
    return {
      number,
      text,
      files: spans.filter((span) => /^[\w.-]+(\/[\w.<>-]+)+\.(ts|md|json)$/.test(span)),
      commands: spans.filter((span) => /^(npx|cd) /.test(span)),
    };
  });
}

/** A copy's folder for a file the recipe names with a placeholder (`.changeset/<name>.md`). */
const PLACEHOLDER_NAME = 'recipe';

/**
 * A new copy of the repository in a temporary folder: the files git tracks or would add, as they
 * are in the work tree, and every package's installed dependencies as links to the originals
 * (nothing installed). pnpm links each workspace package by a relative path, so in the copy
 * those links lead to the copied packages. The server's API reference files, which its unit
 * tier's global setup would otherwise compress anew, are copied. The caller removes the folder.
 */
export function copyRepository(): string {
  const copy = mkdtempSync(join(tmpdir(), 'plant-store-recipe-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(copy, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  const packages = files.filter((file) => file.endsWith('/package.json')).map(dirname);
  for (const folder of packages) {
    const from = join(ROOT, folder, 'node_modules');
    if (existsSync(from)) copyLinks(from, join(copy, folder, 'node_modules'));
  }
  return copy;
}

/** The links of a package's `node_modules` recreated in `to`, the shims' folder linked. */
function copyLinks(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    const source = join(from, entry);
    if (lstatSync(source).isSymbolicLink()) {
      symlinkSync(readlinkSync(source), join(to, entry));
    } else if (entry.startsWith('@')) {
      copyLinks(source, join(to, entry));
    } else if (entry === '.bin') {
      symlinkSync(realpathSync(source), join(to, entry));
    } else if (entry === '.cache' && existsSync(join(source, 'docs-assets'))) {
      cpSync(join(source, 'docs-assets'), join(to, entry, 'docs-assets'), { recursive: true });
    }
    // Anything else (vite's and vitest's caches) is the copy's own to make.
  }
}

/** An edit of a file: its text (undefined for a file that does not exist yet) to the new text. */
export type Edit = (text: string | undefined) => string;

/** A recipe's example: by step number, the files the step names and the edit of each. */
export type RecipeEdits = Record<number, Record<string, Edit>>;

/** A file one step changed: its text before (undefined when new) and after. */
export interface Change {
  readonly step: number;
  readonly file: string;
  readonly before: string | undefined;
  readonly after: string;
}

/**
 * Applies to the copy the edits of `steps` (every step's by default), in step order; an edit
 * that no longer fits its file throws an error naming the step and the file.
 */
export function applyEdits(
  copy: string,
  recipe: string,
  edits: RecipeEdits,
  steps: readonly number[] = Object.keys(edits).map(Number),
): Change[] {
  const changes: Change[] = [];
  for (const step of [...steps].sort((a, b) => a - b)) {
    for (const [file, edit] of Object.entries(edits[step] ?? {})) {
      const path = join(copy, file.replace('<name>', PLACEHOLDER_NAME));
      const before = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
      let after: string;
      try {
        after = edit(before);
      } catch (error) {
        throw new Error(`step ${step} of ${recipe}: ${file}: ${(error as Error).message}`);
      }
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, after);
      changes.push({ step, file, before, after });
    }
  }
  return changes;
}

/** This environment without what the running test runner set for itself or its packages. */
const commandEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(VITEST|NODE_OPTIONS$|TEST$|npm_|pnpm_|INIT_CWD$|TURBO_)/i.test(name),
    ),
  ),
  NO_COLOR: '1',
  FORCE_COLOR: '0',
};

/** Runs `command` in the copy as a shell would; its exit status (null when killed) and output. */
export function runCommand(
  copy: string,
  command: string,
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', command],
      { cwd: copy, env: commandEnv, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ status, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** A recipe read from the docs: its name (for messages) and its numbered steps. */
export interface Recipe {
  readonly name: string;
  readonly steps: readonly RecipeStep[];
}

/**
 * Runs in the copy the commands the `recipes` name, their edits all applied: first each step's
 * but the last, recipe after recipe, in order, then every recipe's last step (its checks), side
 * by side, since they change no file another reads. A command two recipes name runs once (the
 * recipes share their generators and their checks). Rejects with the recipe, the step, the
 * command and the end of the output of each command that failed.
 */
export async function runSteps(copy: string, recipes: readonly Recipe[]): Promise<void> {
  const named = (lists: [Recipe, RecipeStep][]) => {
    const first = new Map<string, string>();
    for (const [recipe, step] of lists) {
      for (const command of step.commands) {
        if (!first.has(command)) first.set(command, `step ${step.number} of ${recipe.name}`);
      }
    }
    return [...first];
  };
  const failed = (where: string, command: string, output: string) =>
    new Error(`${where}: \`${command}\` failed:\n${output.slice(-6000)}`);
  const body = recipes.flatMap((recipe) =>
    recipe.steps.slice(0, -1).map((step): [Recipe, RecipeStep] => [recipe, step]),
  );
  for (const [command, where] of named(body)) {
    const { status, output } = await runCommand(copy, command);
    if (status !== 0) throw failed(where, command, output);
  }
  const checks = recipes.flatMap((recipe): [Recipe, RecipeStep][] => {
    const last = recipe.steps.at(-1);
    return last ? [[recipe, last]] : [];
  });
  const results = await Promise.all(
    named(checks).map(async ([command, where]) => ({
      command,
      where,
      ...(await runCommand(copy, command)),
    })),
  );
  const errors = results
    .filter(({ status }) => status !== 0)
    .map(({ command, where, output }) => failed(where, command, output));
  if (errors.length > 0) throw new Error(errors.map((error) => error.message).join('\n\n'));
}
