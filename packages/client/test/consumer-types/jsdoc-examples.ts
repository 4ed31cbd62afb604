import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const CONTEXT = fileURLToPath(new URL('./jsdoc-context.ts', import.meta.url));

/** One `@example` block of a JSDoc comment in src/. */
export interface JsdocExample {
  /** The source file, e.g. `errors.ts`. */
  readonly file: string;
  /** The exported name the comment documents, e.g. `PlantStoreError`. */
  readonly of: string;
  readonly code: string;
}

/**
 * Every `@example` block of the client's source files (tests aside), in file and line order:
 * the lines after the tag up to the next tag or the end of the comment, ` * ` removed.
 *
 * @example
 * jsdocExamples()[0]; // { file: 'client.ts', of: 'createPlantStoreClient', code: 'const client = …' }
 */
export function jsdocExamples(sources: Record<string, string> = readSources()): JsdocExample[] {
  return Object.entries(sources).flatMap(([file, text]) => {
    const lines = text.split('\n');
    const examples: JsdocExample[] = [];
    lines.forEach((line, index) => {
      if (!/^\s*\* @example\s*$/.test(line)) return;
      const code: string[] = [];
      for (const next of lines.slice(index + 1)) {
        if (/^\s*\*\//.test(next) || /^\s*\* @\w/.test(next)) break;
        code.push(next.replace(/^\s*\* ?/, ''));
      }
      while (code.at(-1) === '') code.pop();
      const end = lines.findIndex((next, at) => at > index && /^\s*\*\//.test(next));
      const declaration = /^export (?:declare )?(?:async )?\w+ ([A-Za-z_$][\w$]*)/.exec(
        lines[end + 1] ?? '',
      );
      examples.push({ file, of: declaration?.[1] ?? '(no declaration)', code: code.join('\n') });
    });
    return examples;
  });
}

/**
 * The TypeScript module that holds every example as the body of an async function, with the
 * names it uses imported: a source file's exports from that file, the rest (`client`,
 * `contract`, …) from jsdoc-context.ts. `tsc` checks it with the package; nothing runs it.
 */
export function jsdocExamplesModule(sources: Record<string, string> = readSources()): string {
  const exported = exportsOf(sources);
  const context = exportsOf({ '../test/consumer-types/jsdoc-context.ts': readContext() });
  const examples = jsdocExamples(sources);
  const used = new Set(
    examples.flatMap((example) => example.code.match(/[A-Za-z_$][\w$]*/g) ?? []),
  );
  const imports = new Map<string, { values: string[]; types: string[] }>();
  for (const name of [...used].sort(byName)) {
    const from = exported.get(name) ?? context.get(name);
    if (!from) continue;
    const entry = imports.get(from.file) ?? { values: [], types: [] };
    (from.type ? entry.types : entry.values).push(name);
    imports.set(from.file, entry);
  }
  const importLines = [...imports.entries()]
    // Biome's order: the src/ files, then the context (farther paths first).
    .sort(
      ([a], [b]) =>
        Number(a.startsWith('../test/')) - Number(b.startsWith('../test/')) || byName(a, b),
    )
    .flatMap(([file, { values, types }]) => {
      const path = file.startsWith('../test/consumer-types/')
        ? `./${file.split('/').at(-1)}`
        : `../../src/${file}`;
      return [
        ...(types.length > 0 ? [`import type { ${types.join(', ')} } from '${path}';`] : []),
        ...(values.length > 0 ? [`import { ${values.join(', ')} } from '${path}';`] : []),
      ];
    });
  const functions = examples.map((example, index) => {
    const body = example.code
      .split('\n')
      .map((line) => (line === '' ? '' : `  ${line}`))
      .join('\n');
    return `// src/${example.file}, ${example.of}\nexport async function example${index + 1}(): Promise<void> {\n${body}\n}\n`;
  });
  return [
    '// biome-ignore-all format: the examples as their JSDoc writes them',
    '// biome-ignore-all lint/correctness/noUnusedVariables: an example names what it shows',
    '// Generated from the @example blocks of src/*.ts by',
    '// `pnpm --filter @plant-store/client run consumer-types`: do not edit. Type-checked by the',
    "// package's typecheck (a wrong example fails it); never run.",
    '',
    ...importLines,
    '',
    ...functions,
  ].join('\n');
}

/**
 * Biome's order of imported names (organizeImports): letters compared regardless of case, an
 * upper-case letter before its lower-case one.
 */
function byName(a: string, b: string): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i] ?? '', b[i] ?? ''];
    const folded = x.toLowerCase().localeCompare(y.toLowerCase());
    if (folded !== 0) return folded;
    if (x !== y) return x === x.toUpperCase() ? -1 : 1;
  }
  return a.length - b.length;
}

/** Each name a module exports, with its file and whether it is a type. */
function exportsOf(sources: Record<string, string>) {
  const names = new Map<string, { file: string; type: boolean }>();
  for (const [file, text] of Object.entries(sources)) {
    const declared = text.matchAll(
      /^export (?:declare )?(?:async )?(function|const|let|class|interface|type) ([A-Za-z_$][\w$]*)/gm,
    );
    for (const [, kind, name] of declared) {
      if (name) names.set(name, { file, type: kind === 'interface' || kind === 'type' });
    }
  }
  return names;
}

function readSources(): Record<string, string> {
  return Object.fromEntries(
    readdirSync(SRC)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .sort()
      .map((file) => [file, readFileSync(join(SRC, file), 'utf8')]),
  );
}

function readContext(): string {
  return readFileSync(CONTEXT, 'utf8');
}
