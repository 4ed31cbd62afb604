import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The docs and the comments name only what exists: a file path in backticks in docs/*.md, a
// `.ts` file named in a source comment and a function called in an `@example` block must all
// resolve in the repository. (The docs' code blocks themselves run in
// test/e2e/docs-commands.test.ts.)

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Folders that are not the repository's own files (.gitignore's, and .git). */
const SKIPPED_FOLDERS = new Set([
  'node_modules',
  'dist',
  'dist-docs',
  'out',
  'data',
  'coverage',
  'test-results',
  '.git',
  '.turbo',
  '.tools',
]);

/** Every file of the repository (relative, `/`-separated), without dependencies and builds. */
function repositoryFiles(folder = ''): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED_FOLDERS.has(entry.name)) return [];
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
    return entry.isDirectory() ? repositoryFiles(path) : [path];
  });
}

const FILES = repositoryFiles();
/** This file quotes stale names on purpose (to show they are caught): it is not scanned. */
const THIS_FILE = 'apps/server/test/docs-names.test.ts';
const SOURCES = FILES.filter(
  (file) => /\.(ts|mts|js|mjs)$/.test(file) && !file.endsWith('.d.ts') && file !== THIS_FILE,
);
/** The folders with a package.json (their node_modules hold the packages they use). */
const PACKAGE_FOLDERS = FILES.filter((file) => /(^|\/)package\.json$/.test(file)).map((file) =>
  posix.dirname(file),
);
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

// ---- file paths -------------------------------------------------------------------------

/** Names of example files, not files of the repository. */
const PLACEHOLDER = /^(foo|bar|baz)\b/;

/**
 * Why the path `named` in `file` does not resolve, or undefined when it does. A path resolves
 * when it is a repository file relative to the root or to `file`'s folder, or is the end of a
 * repository file's path (`limits/key.ts`, `config.ts`); a built file (`dist/cli.js`) when
 * its source (`src/cli.ts`) exists; an npm package's name (`ipaddr.js`) when it is installed.
 */
function checkPath(file: string, named: string): string | undefined {
  if (PLACEHOLDER.test(named)) return undefined;
  const path = posix.normalize(named.replace(/^\.\//, ''));
  // `out/` is what `pnpm artifact` writes (its files are checked by the artifact e2e test).
  if (path.startsWith('out/')) return undefined;
  const candidates = [path, posix.join(posix.dirname(file), path)];
  const built = /(?:^|\/)dist\/(.+)\.(?:m|c)?js$/.exec(path);
  if (built) candidates.push(path.replace(/(^|\/)dist\/.+$/, `$1src/${built[1]}.ts`));
  const found = candidates.some(
    (candidate) =>
      FILES.includes(candidate) || FILES.some((other) => other.endsWith(`/${candidate}`)),
  );
  const installed = PACKAGE_FOLDERS.some((folder) =>
    existsSync(join(ROOT, folder, 'node_modules', named, 'package.json')),
  );
  if (found || installed) return undefined;
  return `${file}: names \`${named}\`, which is no file of the repository`;
}

/** The file paths a Markdown text names in code spans (`foo/bar.ts`, `x.json`). */
function pathsInMarkdown(text: string): string[] {
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] ?? '');
  return spans.filter((span) =>
    /^(?:\.{1,2}\/)?(?:[\w@.-]+\/)*[\w-][\w.-]*\.(?:ts|js|mjs|cjs|json|md|ya?ml|sh)$/.test(span),
  );
}

/** The `.ts`/`.md` file names in the comments of a source text. */
function pathsInComments(text: string): string[] {
  const comments = [...text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\w])\/\/.*$/gm)].map(
    (match) => match[0],
  );
  return comments.flatMap((comment) =>
    [
      ...comment.matchAll(
        /(?<![\w.@/-])((?:\.\/)?(?:[\w.-]+\/)*[\w-][\w.-]*\.(?:ts|md))(?![\w/-])/g,
      ),
    ].map((match) => match[1] ?? ''),
  );
}

// ---- identifiers called in @example blocks ----------------------------------------------

const KEYWORDS = new Set(
  'if for while switch catch function return typeof await async new super import void delete'.split(
    ' ',
  ),
);

/** The names a source text exports (declarations and `export { … }` lists, `type` or not). */
function exportsOf(text: string): string[] {
  const declared = [
    ...text.matchAll(
      /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|class|abstract\s+class|interface|type|enum)\s+([\w$]+)/gm,
    ),
  ].map((match) => match[1] ?? '');
  const listed = [...text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)].flatMap((match) =>
    (match[1] ?? '')
      .split(',')
      .map((part) => part.trim().replace(/^type\s+/, ''))
      .map((part) => part.split(/\s+as\s+/).pop() ?? '')
      .filter(Boolean),
  );
  return [...declared, ...listed];
}

/** What every module of the workspace exports. */
const EXPORTED = new Set(SOURCES.flatMap((file) => exportsOf(read(file))));

/** Node modules and the test framework, whose functions examples call. */
const LIBRARIES = ['fs', 'fs/promises', 'path', 'os', 'url', 'http', 'net', 'crypto', 'stream']
  .concat(['events', 'child_process', 'util', 'timers/promises'])
  .map((name) => `node:${name}`)
  .concat(['vitest', 'vitest/config']);
const LIBRARY_EXPORTED = new Set(
  (await Promise.all(LIBRARIES.map(async (name) => Object.keys(await import(name))))).flat(),
);

/** The code of each `@example` block of a source text (JSDoc `*` and line comments removed). */
function examplesOf(text: string): string[] {
  return [...text.matchAll(/\/\*\*([\s\S]*?)\*\//g)].flatMap((match) => {
    const lines = (match[1] ?? '').split('\n').map((line) => line.replace(/^\s*\* ?/, ''));
    const start = lines.findIndex((line) => line.startsWith('@example'));
    if (start === -1) return [];
    const rest = lines.slice(start + 1);
    const end = rest.findIndex((line) => /^@\w/.test(line));
    return [
      (end === -1 ? rest : rest.slice(0, end))
        .map((line) => line.replace(/(?<![:'"`\w])\/\/.*$/, ''))
        .join('\n'),
    ];
  });
}

/** The functions and classes an example calls by a bare name (`f(…)`, `new C(…)`). */
function callsIn(example: string): string[] {
  const called = [...example.matchAll(/(?<![.\w$])([A-Za-z_$][\w$]*)\s*\(/g)].map(
    (match) => match[1] ?? '',
  );
  return [...new Set(called)].filter((name) => !KEYWORDS.has(name));
}

/** Names a text declares or imports (a rough scan: enough to tell a name exists there). */
function declaredIn(text: string): Set<string> {
  const names = [
    ...text.matchAll(/(?:function\*?|const|let|var|class)\s+([\w$]+)/g),
    ...text.matchAll(/(?:const|let|var)\s*[{[]([^}\]=]*)[}\]]/g),
    ...text.matchAll(/import\s+(?:type\s+)?([\w$]+)/g),
    ...text.matchAll(/import\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?\{([^}]*)\}/g),
    ...text.matchAll(/import\s+\*\s+as\s+([\w$]+)/g),
    ...text.matchAll(/\(([^()]*)\)\s*=>/g),
    ...text.matchAll(/([\w$]+)\s*=>/g),
  ];
  return new Set(
    names.flatMap((match) =>
      (match[1] ?? '')
        .split(',')
        .map((part) => (part.split(/\s+as\s+|:/).pop() ?? '').trim().replace(/^type\s+/, ''))
        .map((part) => part.replace(/[=?].*$/, '').trim()),
    ),
  );
}

/**
 * Why the name `called` in an `@example` of `file` does not resolve, or undefined when it
 * does: it must be a global, declared in the example or in `file`, or exported by a module of
 * the workspace or by one of `LIBRARIES`.
 */
function checkCall(file: string, example: string, called: string): string | undefined {
  if (called in globalThis || EXPORTED.has(called) || LIBRARY_EXPORTED.has(called)) {
    return undefined;
  }
  if (declaredIn(example).has(called) || declaredIn(read(file)).has(called)) return undefined;
  return `${file}: an @example calls \`${called}\`, which is not declared there and no module exports`;
}

// ---- the checks --------------------------------------------------------------------------

/** docs/*.md. */
const DOCS = FILES.filter((file) => /^docs\/[^/]+\.md$/.test(file));

describe('the names the docs and comments use', () => {
  it('are files of the repository: every path in backticks in docs/*.md', () => {
    expect(DOCS.length).toBeGreaterThan(2);
    // A file the doc itself says to save (a recipe's "Save as `x.mjs`:") or to create (a
    // recipe step's "`x.ts` (new)") is the reader's.
    const saved = (text: string) =>
      new Set([...text.matchAll(/Save as `([^`]+)`|`([^`]+)` \(new\)/g)].map((m) => m[1] ?? m[2]));
    const named = DOCS.flatMap((file) => {
      const text = read(file);
      return pathsInMarkdown(text)
        .filter((path) => !saved(text).has(path))
        .map((path) => ({ file, path }));
    });
    expect(named.length).toBeGreaterThan(10);
    const unresolved = named.flatMap(({ file, path }) => checkPath(file, path) ?? []);
    expect(unresolved).toEqual([]);
  });

  it('are files of the repository: every .ts/.md file a source comment names', () => {
    const named = SOURCES.flatMap((file) =>
      pathsInComments(read(file)).map((path) => ({ file, path })),
    );
    expect(named.length).toBeGreaterThan(10);
    const unresolved = named.flatMap(({ file, path }) => checkPath(file, path) ?? []);
    expect(unresolved).toEqual([]);
  });

  it('exist: every function or class an @example block calls', () => {
    const calls = SOURCES.flatMap((file) =>
      examplesOf(read(file)).flatMap((example) =>
        callsIn(example).map((called) => ({ file, example, called })),
      ),
    );
    expect(calls.length).toBeGreaterThan(50);
    const unresolved = calls.flatMap(
      ({ file, example, called }) => checkCall(file, example, called) ?? [],
    );
    expect(unresolved).toEqual([]);
  });

  it('catches a missing file and a missing function, naming the file', () => {
    expect(pathsInMarkdown('`limits/key.ts`, `process.exit`, `a b.ts`, `/openapi.json`')).toEqual([
      'limits/key.ts',
    ]);
    expect(checkPath('docs/architecture.md', 'limits/key.ts')).toBeUndefined();
    expect(checkPath('docs/operations.md', 'dist/cli.js')).toBeUndefined();
    expect(checkPath('docs/architecture.md', 'ipaddr.js')).toBeUndefined();
    expect(checkPath('docs/architecture.md', 'send-with-retries.ts')).toBe(
      'docs/architecture.md: names `send-with-retries.ts`, which is no file of the repository',
    );
    expect(checkPath('docs/api.md', 'dist/no-such-entry.js')).toMatch(/no file/);
    expect(pathsInComments("// the serializer (openapi-file.ts), see './x.ts'\n")).toEqual([
      'openapi-file.ts',
      './x.ts',
    ]);
    expect(checkPath('packages/schema/src/int64.ts', './json.ts')).toBeUndefined();
    expect(checkPath('packages/schema/src/int64.ts', './x.ts')).toMatch(
      /`\.\/x\.ts`, which is no file/,
    );

    const file = 'apps/server/src/connection/drain.ts';
    const example =
      examplesOf(
        '/**\n * Drains.\n *\n * @example\n * drainOnShutdown(server, watchSockets(server)); // done(x)\n */',
      )[0] ?? '';
    expect(callsIn(example)).toEqual(['drainOnShutdown', 'watchSockets']);
    expect(checkCall(file, example, 'drainOnShutdown')).toBeUndefined();
    expect(checkCall(file, example, 'watchSockets')).toBe(
      `${file}: an @example calls \`watchSockets\`, which is not declared there and no module exports`,
    );
    expect(checkCall(file, 'const track = () => 1;\ntrack();', 'track')).toBeUndefined();
  });
});
