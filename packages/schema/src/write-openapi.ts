import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from './openapi.ts';
import { serializeOpenApiDocument } from './openapi-file.ts';

// `pnpm openapi`: writes the generated document next to package.json, where it is committed.
const target = fileURLToPath(new URL('../openapi.json', import.meta.url));
writeFileSync(target, serializeOpenApiDocument(buildOpenApiDocument()));
console.log(`wrote ${target}`);
