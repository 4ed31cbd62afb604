import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The production artifact (`pnpm artifact`: `pnpm deploy --prod`) installs the server's
// dependencies and optionalDependencies; the build (tsup) bundles every other import into dist/.
// So the packages installed for production must be exactly those the bundle leaves outside, its
// `external` list: a bundled library listed in dependencies would ship a second, unused copy with
// all its own dependencies; an external one missing from them would not load in production.

const APP = new URL('../', import.meta.url);
const MANIFEST = 'apps/server/package.json';
const CONFIG = 'apps/server/tsup.config.ts';

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const readManifest = (url: URL) => JSON.parse(readFileSync(url, 'utf8')) as Manifest;

/** The package names of tsup.config.ts's `external` (string literals), or undefined. */
function externalOf(config: string): string[] | undefined {
  const list = /^\s*external:\s*\[([^\]]*)\]/m.exec(config)?.[1];
  return list === undefined ? undefined : [...list.matchAll(/'([^']+)'/g)].map((m) => m[1] ?? '');
}

/**
 * An optional peer dependency of a bundled (dev) dependency, e.g. pg's native binding pg-native:
 * loaded only where someone installs it, so it stays outside the bundle yet is no dependency.
 */
function optionalPeerOfBundled(name: string, manifest: Manifest): string | undefined {
  return Object.keys(manifest.devDependencies ?? {}).find((bundled) => {
    const installed = new URL(`node_modules/${bundled}/package.json`, APP);
    return (
      existsSync(installed) &&
      readManifest(installed).peerDependenciesMeta?.[name]?.optional === true
    );
  });
}

/** What is wrong between the server's manifest and its tsup config, each with what to do. */
function runtimeDependencyProblems(manifest: Manifest, config: string): string[] {
  const external = externalOf(config);
  if (external === undefined) return [`${CONFIG} has no \`external: [...]\` list of package names`];
  const problems: string[] = [];
  if (/\bnoExternal\b/.test(config)) {
    problems.push(
      `${CONFIG} sets noExternal, which wins over external and dependencies (a package it matches is bundled whatever they say): remove it; tsup already bundles every package but dependencies and external`,
    );
  }
  const installed = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ]);
  for (const name of installed) {
    if (!external.includes(name)) {
      problems.push(
        `${name} is in ${MANIFEST}'s dependencies, so tsup leaves it out of the bundle and \`pnpm artifact\` ships it with all its dependencies: move it to devDependencies (bundled into dist/); only a package that must load from node_modules (a native addon) stays, and then it is also in external in ${CONFIG}`,
      );
    }
  }
  for (const name of external) {
    if (installed.has(name)) continue;
    const owner = optionalPeerOfBundled(name, manifest);
    if (owner !== undefined) continue;
    problems.push(
      `${name} is in external in ${CONFIG} but not in ${MANIFEST}'s dependencies or optionalDependencies, so the artifact has no ${name} to load: add it to dependencies, or drop it from external to bundle it`,
    );
  }
  return problems;
}

describe('the runtime dependencies', () => {
  const manifest = readManifest(new URL('package.json', APP));
  const config = readFileSync(new URL('tsup.config.ts', APP), 'utf8');

  it(`are exactly what the bundle leaves outside (${MANIFEST}, ${CONFIG})`, () => {
    expect(runtimeDependencyProblems(manifest, config)).toEqual([]);
    // pg-native stays outside as pg's optional peer (the bundled pg loads it where installed).
    expect(externalOf(config)).toContain('pg-native');
    expect(optionalPeerOfBundled('pg-native', manifest)).toBe('pg');
  });

  it('names the package and the files to change when they disagree', () => {
    const withKoa = { ...manifest, dependencies: { ...manifest.dependencies, koa: '^3.0.0' } };
    expect(runtimeDependencyProblems(withKoa, config)).toEqual([
      expect.stringMatching(
        /^koa is in apps\/server\/package\.json's dependencies.*devDependencies/,
      ),
    ]);
    const withoutDriver = { ...manifest, dependencies: {} };
    expect(runtimeDependencyProblems(withoutDriver, config)).toEqual([
      expect.stringMatching(/^better-sqlite3 is in external in apps\/server\/tsup\.config\.ts/),
    ]);
    const overridden = config.replace(/^(\s*)external:/m, '$1noExternal: [/./],\n$1external:');
    expect(runtimeDependencyProblems(manifest, overridden)).toEqual([
      expect.stringMatching(/noExternal, which wins over external/),
    ]);
  });
});
