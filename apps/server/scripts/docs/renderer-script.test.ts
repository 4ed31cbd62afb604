import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import { RENDERER_PACKAGE, readPackageScript } from './renderer-script.ts';

it("reads the bundle the renderer's package.json names in browser, without its source map line", () => {
  const script = readPackageScript();
  expect(script.length).toBeGreaterThan(100_000);
  expect(script).not.toMatch(/sourceMappingURL/);
  // The same bytes a bundler resolving the package's browser entry would take.
  const main = createRequire(import.meta.url).resolve(RENDERER_PACKAGE);
  const root = main.slice(
    0,
    main.lastIndexOf(`/${RENDERER_PACKAGE}/`) + RENDERER_PACKAGE.length + 1,
  );
  const { browser } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as {
    browser: string;
  };
  expect(readFileSync(`${root}/${browser}`, 'utf8')).toContain(script.trimEnd().slice(0, 1000));
});
