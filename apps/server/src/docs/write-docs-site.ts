import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeDocsSite } from './docs-site.ts';

// `pnpm docs:build`: writes the static API reference to apps/server/dist-docs (or the folder
// given as the first argument), ready to publish.
const folder = resolve(
  process.argv[2] ?? fileURLToPath(new URL('../../dist-docs', import.meta.url)),
);
const files = writeDocsSite(folder);
console.log(`wrote the API reference to ${folder}: ${files.join(', ')}`);
