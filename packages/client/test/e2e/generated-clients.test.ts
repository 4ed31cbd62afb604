import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readPlantRows, startTestServer, type TestServer } from '@plant-store/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The served /openapi.json names the server it is asked at (servers[0].url, absolute), so a
// client generated from it calls that server with no base URL set by hand: @hey-api/openapi-ts's
// default client (its generated client module takes the URL from the document), and
// openapi-fetch given the document's `servers[0].url`. In a folder outside the workspace,
// against a real server, as the openapi-fetch recipe's test does; the generators are this
// package's devDependencies (@hey-api/openapi-ts 0.95, its last release for Node 20).

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
const HEY_API_CLIENT = `import { createPlant } from './hey-api/index.js';

// No base URL: the generated client's is the served document's server.
const { data, error, response } = await createPlant({
  auth: process.env.PLANT_TOKEN,
  body: { id: 4242, name: 'Aloe', tag: 'succulent' },
});
console.log(response.status, JSON.stringify(data ?? error));
`;
const OPENAPI_FETCH_CLIENT = `import { readFileSync } from 'node:fs';
import createClient from 'openapi-fetch';
import type { paths } from './plant-store.js';

// The base URL is the document's server, as the document was served.
const document = JSON.parse(readFileSync('openapi.json', 'utf8'));
const client = createClient<paths>({
  baseUrl: document.servers[0].url,
  headers: { Authorization: \`Bearer \${process.env.PLANT_TOKEN}\` },
});
const { data, error, response } = await client.POST('/plants', {
  body: { id: 4243, name: 'Haworthia' },
});
console.log(response.status, JSON.stringify(data ?? error));
`;

const work = mkdtempSync(join(tmpdir(), 'plant-store-generated-clients-'));
let server: TestServer;
let served: { servers: { url: string }[] };
const printed: Record<string, string> = {};
beforeAll(async () => {
  server = await startTestServer();
  symlinkSync(join(PACKAGE, 'node_modules'), join(work, 'node_modules'));
  // The installed bins on the PATH, as `npx` would find them, without npx's start-up.
  const env = {
    PATH: `${join(work, 'node_modules/.bin')}:${process.env.PATH ?? ''}`,
    HOME: work,
    PLANT_TOKEN: server.token,
  };
  const sh = async (script: string) =>
    (await run('sh', ['-ec', script], { cwd: work, env, maxBuffer: 16 * 1024 * 1024 })).stdout;
  const documentUrl = `${server.url}/openapi.json`;
  await sh(`openapi-ts -i '${documentUrl}' -o hey-api`);
  // A .ts module rather than a .d.ts, so that the check below covers it.
  await sh(`openapi-typescript '${documentUrl}' -o plant-store.ts`);
  served = JSON.parse(await (await fetch(documentUrl)).text());
  writeFileSync(join(work, 'openapi.json'), JSON.stringify(served));
  writeFileSync(join(work, 'hey-api-create.mts'), HEY_API_CLIENT);
  writeFileSync(join(work, 'openapi-fetch-create.mts'), OPENAPI_FETCH_CLIENT);
  // Every generated file is TypeScript (.ts) and checked; the declarations of TypeScript's lib
  // and of the installed packages are theirs to check (skipLibCheck).
  await sh(
    'tsc --strict --skipLibCheck --module nodenext --target es2022 --types node hey-api-create.mts openapi-fetch-create.mts',
  );
  printed.heyApi = await sh('node hey-api-create.mjs');
  printed.openapiFetch = await sh('node openapi-fetch-create.mjs');
});
afterAll(async () => {
  await server?.dispose();
  rmSync(work, { recursive: true, force: true });
});

describe('clients generated from the served /openapi.json, with no base URL set by hand', () => {
  it('the document names the server it was asked at, absolute', () => {
    expect(served.servers[0]?.url).toBe(new URL(server.url).origin);
  });

  it("@hey-api/openapi-ts's default client: its base URL is the document's server", () => {
    expect(readFileSync(join(work, 'hey-api', 'client.gen.ts'), 'utf8')).toContain(
      `baseUrl: '${new URL(server.url).origin}'`,
    );
  });

  it('each creates its plant: answered 200, stored', () => {
    expect(printed.heyApi?.trim()).toBe('200 {"name":"Aloe","tag":"succulent"}');
    expect(printed.openapiFetch?.trim()).toBe('200 {"name":"Haworthia"}');
    expect(readPlantRows(server.databaseFile)).toEqual([
      { id: 4242n, name: 'Aloe', tag: 'succulent' },
      { id: 4243n, name: 'Haworthia' },
    ]);
  });
});
