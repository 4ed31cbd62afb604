import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { runsAsProgram } from './program.ts';

const moduleUrl = new URL('./program.ts', import.meta.url).href;

it('is true when Node was started with the module: its path, without .js, or a symlink to it', () => {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-program-'));
  try {
    const built = join(folder, 'main.js'); // as dist/main.js
    writeFileSync(built, '');
    symlinkSync(built, join(folder, 'linked.js'));
    const url = pathToFileURL(built).href;
    expect(runsAsProgram(url, built)).toBe(true);
    expect(runsAsProgram(url, join(folder, 'main'))).toBe(true); // node dist/main
    expect(runsAsProgram(url, join(folder, 'linked.js'))).toBe(true);
    expect(runsAsProgram(moduleUrl, fileURLToPath(moduleUrl))).toBe(true); // tsx src/main.ts
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

it('is false for a module that was imported: another program, or none', () => {
  expect(runsAsProgram(moduleUrl, fileURLToPath(import.meta.url))).toBe(false);
  expect(runsAsProgram(moduleUrl, undefined)).toBe(false);
  expect(runsAsProgram(moduleUrl)).toBe(false); // vitest is the program here
});
