import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { jsdocExamplesModule } from './jsdoc-examples.ts';

// `pnpm --filter @plant-store/client run consumer-types`: rewrites jsdoc-examples.check.ts from
// the @example blocks of src/*.ts.
const target = fileURLToPath(new URL('./jsdoc-examples.check.ts', import.meta.url));
writeFileSync(target, jsdocExamplesModule());
console.log(`wrote ${target}`);
