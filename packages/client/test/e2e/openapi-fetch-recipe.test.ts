import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readPlantRows, startTestServer, type TestServer } from '@plant-store/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownSteps } from '../support/markdown-steps.ts';

// docs/api.md, "Generated clients: keep int64 ids exact": the recipe's blocks as written, in a
// folder outside the workspace, against a real server's /openapi.json: openapi-typescript with
// the int64 → bigint transform, `tsc --strict`, then openapi-fetch with lossless-json's
// bodySerializer creates id 2^63 − 1. The packages are this package's devDependencies (the
// versions the lockfile pins), linked in as the recipe's `npm install` would put them.

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
const API_MD = fileURLToPath(new URL('../../../../docs/api.md', import.meta.url));
const MAX_INT64 = 2n ** 63n - 1n;

const work = mkdtempSync(join(tmpdir(), 'plant-store-openapi-fetch-'));
let server: TestServer;
let printed = '';
beforeAll(async () => {
  server = await startTestServer();
  symlinkSync(join(PACKAGE, 'node_modules'), join(work, 'node_modules'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: work,
    PLANT_STORE_URL: server.url,
    PLANT_TOKEN: server.token,
    // npx's check for a newer npm: a registry request on each run in a new HOME.
    npm_config_update_notifier: 'false',
  };
  for (const step of markdownSteps(readFileSync(API_MD, 'utf8'), 'openapi-fetch-recipe')) {
    if (step.kind === 'save') writeFileSync(join(work, step.file), step.text);
    else printed = (await run('sh', ['-ec', step.script], { cwd: work, env })).stdout;
  }
});
afterAll(async () => {
  await server.dispose();
  rmSync(work, { recursive: true, force: true });
});

describe('the openapi-typescript + openapi-fetch recipe, as docs/api.md writes it', () => {
  it('types the id as a bigint from the served document (the default would be number)', () => {
    const types = readFileSync(join(work, 'plant-store.d.ts'), 'utf8');
    expect(types).toMatch(/NewPlant: \{[^}]*\bid: bigint;/);
    expect(types).not.toMatch(/\bid: number/);
  });

  it('compiles strictly and creates id 2^63 − 1: answered 200, stored exactly', () => {
    const expected = /console\.log\(.*\); \/\/ (.*)$/m.exec(
      readFileSync(join(work, 'create-plant.mts'), 'utf8'),
    )?.[1];
    expect(printed.trim()).toBe(expected);
    expect(printed.trim()).toBe('200 {"name":"Monstera","tag":"indoor"}');
    expect(readPlantRows(server.databaseFile)).toEqual([
      { id: MAX_INT64, name: 'Monstera', tag: 'indoor' },
    ]);
  });
});
