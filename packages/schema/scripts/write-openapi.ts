import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  buildOpenApiDocument,
  serializeOpenApiDocument,
  serializeOpenApiYaml,
} from '../src/openapi/index.ts';

// `pnpm openapi`: writes the generated document next to package.json, as JSON and as YAML,
// where both are committed.
const document = buildOpenApiDocument();
for (const [file, text] of [
  ['openapi.json', serializeOpenApiDocument(document)],
  ['openapi.yaml', serializeOpenApiYaml(document)],
] as const) {
  const target = fileURLToPath(new URL(`../${file}`, import.meta.url));
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
