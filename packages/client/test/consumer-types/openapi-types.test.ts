import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import { generateOpenApiTypes } from './generate-openapi-types.ts';

const require = createRequire(import.meta.url);

it('openapi-types.d.ts is what openapi-typescript generates from the committed openapi.json (run `pnpm --filter @plant-store/client run consumer-types`)', async () => {
  const document = JSON.parse(
    readFileSync(require.resolve('@plant-store/schema/openapi.json'), 'utf8'),
  );
  const committed = readFileSync(new URL('./openapi-types.d.ts', import.meta.url), 'utf8');
  expect(committed).toBe(await generateOpenApiTypes(document));
  expect(committed).toContain('NewPlant: {');
});
