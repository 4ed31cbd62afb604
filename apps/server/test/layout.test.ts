import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageName, packageSpecifiers } from './support/package-specifiers.ts';

// The source tree's shape (docs/architecture.md): imports run one way, from the entry points
// down to the store and the config, without cycles, and every module serves the running code.

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const APP = fileURLToPath(new URL('..', import.meta.url));
/**
 * Entry points: the server process and the command line. The build-time docs writers live in
 * scripts/docs/ (they never run in the server process).
 */
const ENTRIES = ['main.ts', 'cli.ts'];

/** The layer of a source file: a file may import only its own layer or those below it. */
function layer(file: string): number {
  const top = file.split('/')[0] ?? file;
  const layers: Record<string, number> = {
    'main.ts': 0,
    'cli.ts': 0,
    'server.ts': 1,
    'app.ts': 2,
    connection: 2,
    'handlers.ts': 3,
    http: 3,
    auth: 3,
    limits: 3,
    docs: 3,
    observability: 4,
    store: 5,
    'config.ts': 6,
    'listen.ts': 6,
    'program.ts': 6,
    'api-error.ts': 4,
  };
  const found = layers[top];
  if (found === undefined) throw new Error(`src/${file} is in no layer: add it to the map`);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) &&
      !/\.test\.ts$/.test(entry.name) &&
      !entry.name.endsWith('.d.ts')
      ? [relative(SRC, path)]
      : [];
  });
}

/** The relative imports of a file (static, dynamic and type-only), as paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)];
  return specifiers.map((match) => relative(SRC, resolve(SRC, dirname(file), match[1] ?? '')));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));

describe('the source tree', () => {
  it('imports only within src/ (nothing from the tests)', () => {
    const outside = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => target.startsWith('..')).map((target) => `${file} → ${target}`),
    );
    expect(outside).toEqual([]);
  });

  it('imports one way: no module reaches up into a layer above its own', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => layer(target) < layer(file))
        .map((target) => `${file} → ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('keeps the store adapters apart: store/sqlite and store/postgres never import each other', () => {
    const adapter = (file: string) => /^store\/(sqlite|postgres)\//.exec(file)?.[1];
    const crossing = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => adapter(file) && adapter(target) && adapter(target) !== adapter(file))
        .map((target) => `${file} → ${target}`),
    );
    expect(crossing).toEqual([]);
  });

  it('has no import cycle, between files or between the features', () => {
    // A feature is a top-level folder (store/ with its adapters) or a top-level file.
    const folderOf = (file: string) => file.split('/')[0] ?? file;
    const folders = new Map<string, Set<string>>();
    for (const [file, imports] of graph) {
      const edges = folders.get(folderOf(file)) ?? new Set<string>();
      for (const target of imports)
        if (folderOf(target) !== folderOf(file)) edges.add(folderOf(target));
      folders.set(folderOf(file), edges);
    }
    const fileEdges = new Map([...graph].map(([file, imports]) => [file, new Set(imports)]));
    expect(findCycle(fileEdges)).toEqual([]);
    expect(findCycle(folders)).toEqual([]);
  });

  it('holds only modules the running code uses (reachable from an entry point)', () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const target of graph.get(file) ?? []) visit(target);
    };
    for (const entry of ENTRIES) visit(entry);
    expect(files.filter((file) => !reached.has(file))).toEqual([]);
  });
});

describe('the source tree and its libraries', () => {
  // Every file under src/, tests included.
  const everyFile = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? everyFile(join(dir, entry.name))
        : entry.name.endsWith('.ts')
          ? [join(dir, entry.name)]
          : [],
    );
  const texts = everyFile(SRC).map((path) => ({
    file: relative(SRC, path),
    text: readFileSync(path, 'utf8'),
  }));

  it('imports packages only through their public entries (no lib/, dist/, src/ or path their exports do not list)', () => {
    const deep = texts.flatMap(({ file, text }) =>
      packageSpecifiers(text).flatMap((specifier) => {
        const problem = deepImportProblem(specifier);
        return problem === undefined ? [] : [`${file}: '${specifier}' (${problem})`];
      }),
    );
    expect(deep).toEqual([]);
  });

  it('recognises the deep imports it refuses, in every form', () => {
    const text = [
      "const a = require('prom-client/lib/cluster.js');",
      "import type { B } from 'rate-limiter-flexible/lib/RateLimiterRes.js';",
      "const c = await import('pino/file');",
      "import { z } from 'zod/mini';",
      "import { d } from '@plant-store/schema/openapi';",
      "import { e } from '@plant-store/schema/src/contract.ts';",
      "import { f } from './local.ts';",
      "import { g } from 'node:fs';",
    ].join('\n');
    expect(packageSpecifiers(text).map((specifier) => deepImportProblem(specifier))).toEqual([
      'a private folder',
      'a private folder',
      'not in the exports of pino',
      undefined,
      undefined,
      'a private folder',
    ]);
  });

  it('casts nothing through `as unknown as`', () => {
    const casts = texts.flatMap(({ file, text }) =>
      text
        .split('\n')
        .flatMap((line, index) => (/\bas unknown as\b/.test(line) ? [`${file}:${index + 1}`] : [])),
    );
    expect(casts).toEqual([]);
  });
});

describe('public APIs only', () => {
  // The code of the server, its scripts and the contract package, tests aside.
  const roots = [SRC, join(APP, 'scripts'), join(APP, '..', '..', 'packages', 'schema', 'src')];
  const code = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? code(join(dir, entry.name))
        : /(?<!\.test)\.ts$/.test(entry.name)
          ? [join(dir, entry.name)]
          : [],
    );
  const files = roots.flatMap(code).map((path) => ({
    file: relative(join(APP, '..', '..'), path),
    text: readFileSync(path, 'utf8'),
  }));

  it('reaches past no library or Node API: no deep import, private member, brand or message text', () => {
    const found = files.flatMap(({ file, text }) => [
      ...reachesIn(text).map((reach) => `${file}: ${reach}`),
      ...packageSpecifiers(text).flatMap((specifier) => {
        const problem = deepImportProblem(specifier);
        return problem === undefined ? [] : [`${file}: '${specifier}' (${problem})`];
      }),
    ]);
    expect(found).toEqual([]);
  });

  it('recognises each reach it refuses', () => {
    const lines = [
      'process.stdout._handle.setBlocking(true);',
      "value[Symbol.for('lossless-json.LosslessNumber')] === true;",
      'Object.prototype.hasOwnProperty.call(value, key);',
      "if (error.message.includes('tokens.name')) return;",
      'const timedOut = /timeout expired/.test(error.message);',
      "const ok = { __proto__: null, message: 'x' }.message;",
    ];
    expect(lines.map((line) => reachesIn(line)[0])).toEqual([
      'a private member (._handle)',
      "another package's brand (Symbol.for)",
      'a prototype call (.prototype.hasOwnProperty)',
      'an error classified by its message text',
      'an error classified by its message text',
      undefined,
    ]);
  });
});

/** Where `text` reaches past a public API: private members, brands, prototype calls, message text. */
function reachesIn(text: string): string[] {
  const rules: [RegExp, (match: string) => string][] = [
    [/\._(?!_proto__)[A-Za-z]\w*/g, (match) => `a private member (${match})`],
    [/\bSymbol\.for\b/g, () => "another package's brand (Symbol.for)"],
    [/\.prototype\.\w+/g, (match) => `a prototype call (${match})`],
    [
      /\.message\s*\.\s*(?:includes|startsWith|endsWith|match|search|indexOf)\s*\(|\.(?:test|exec)\s*\([^)]*\.message\b/g,
      () => 'an error classified by its message text',
    ],
  ];
  return rules.flatMap(([pattern, describe]) =>
    [...text.matchAll(pattern)].map((match) => describe(match[0])),
  );
}

/** Why `specifier` reaches into a package's files; `undefined` for a public entry point. */
function deepImportProblem(specifier: string): string | undefined {
  const name = packageName(specifier);
  const subpath = specifier.slice(name.length + 1);
  if (subpath === '') return undefined;
  if (/^(lib|dist|src)(\/|$)/.test(subpath)) return 'a private folder';
  const listed = exportedPaths(name);
  return listed.some((entry) => matchesExport(entry, `./${subpath}`))
    ? undefined
    : `not in the exports of ${name}`;
}

/** The subpaths a package's `exports` lists ('.' only for a bare string or conditions; none without `exports`). */
function exportedPaths(name: string): string[] {
  const found = [join(APP, 'node_modules', name), join(APP, '..', '..', 'node_modules', name)]
    .map((folder) => join(folder, 'package.json'))
    .find((file) => existsSync(file));
  if (found === undefined) return [];
  const manifest: unknown = JSON.parse(readFileSync(found, 'utf8'));
  const exports =
    typeof manifest === 'object' && manifest !== null && 'exports' in manifest
      ? manifest.exports
      : undefined;
  if (exports === undefined || exports === null) return [];
  if (typeof exports !== 'object' || Array.isArray(exports)) return ['.'];
  const keys = Object.keys(exports);
  return keys.some((key) => key.startsWith('.')) ? keys : ['.'];
}

/** Whether an `exports` key (`./x`, or a pattern such as `./locales/*`) lists `path`. */
function matchesExport(key: string, path: string): boolean {
  if (!key.includes('*')) return key === path;
  const [before = '', after = ''] = key.split('*');
  return path.startsWith(before) && path.endsWith(after) && path.length >= key.length - 1;
}

/** One cycle of `edges` as the nodes along it, or [] when there is none. */
function findCycle(edges: Map<string, Set<string>>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] => {
    if (state.get(node) === 'done') return [];
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle.length > 0) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return [];
  };
  for (const node of edges.keys()) {
    const cycle = visit(node);
    if (cycle.length > 0) return cycle;
  }
  return [];
}
