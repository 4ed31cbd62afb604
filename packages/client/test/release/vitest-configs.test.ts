import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// A passing run prints the reporter's lines only: every vitest config of the workspace keeps a
// test's console output (diagnostics, measured figures) for when that test fails.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const FOLDERS = ['apps', 'packages'].flatMap((parent) =>
  readdirSync(join(ROOT, parent)).map((name) => join(parent, name)),
);
const CONFIGS = [...FOLDERS, 'bench'].flatMap((folder) =>
  readdirSync(join(ROOT, folder))
    .filter((file) => /^vitest(\.[\w-]+)?\.config\.ts$/.test(file))
    .map((file) => join(folder, file)),
);

describe('the vitest configs', () => {
  it('are found in every package', () => {
    expect(CONFIGS).toEqual(
      expect.arrayContaining([
        'apps/server/vitest.config.ts',
        'packages/client/vitest.config.ts',
        'packages/schema/vitest.config.ts',
        'bench/vitest.config.ts',
      ]),
    );
  });

  it.each(CONFIGS)("%s: silent: 'passed-only'", async (file) => {
    const { default: config } = await import(pathToFileURL(join(ROOT, file)).href);
    expect(config.test?.silent, `${file}: set test.silent to 'passed-only'`).toBe('passed-only');
  });
});
