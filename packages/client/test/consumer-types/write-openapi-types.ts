import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { generateOpenApiTypes } from './generate-openapi-types.ts';

// `pnpm --filter @plant-store/client run consumer-types`: regenerates openapi-types.d.ts from
// the committed openapi.json, as an outside consumer would.
const require = createRequire(import.meta.url);
const document = JSON.parse(
  readFileSync(require.resolve('@plant-store/schema/openapi.json'), 'utf8'),
);
const target = fileURLToPath(new URL('./openapi-types.d.ts', import.meta.url));
writeFileSync(target, await generateOpenApiTypes(document));
console.log(`wrote ${target}`);
