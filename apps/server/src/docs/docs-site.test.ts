import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOpenApiDocument } from '@plant-store/schema/openapi';
import { afterAll, expect, it } from 'vitest';
import { writeDocsSite } from './docs-site.ts';
import { loadRendererScript } from './renderer-script.ts';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-docs-site-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

it('writes a self-contained static site: the page, its script and the document, linked relatively', () => {
  const files = writeDocsSite(folder);
  expect(files.sort()).toEqual([
    'assets/api-reference.js',
    'index.html',
    'openapi.json',
    'openapi.yaml',
  ]);
  const html = readFileSync(join(folder, 'index.html'), 'utf8');
  expect(html).toContain('<script src="assets/api-reference.js"></script>');
  expect(html).not.toMatch(/(src|href)="(https?:|\/\/|\/)/);
  expect(readFileSync(join(folder, 'assets/api-reference.js'), 'utf8')).toBe(loadRendererScript());
  expect(JSON.parse(readFileSync(join(folder, 'openapi.json'), 'utf8'))).toEqual(
    JSON.parse(JSON.stringify(buildOpenApiDocument())),
  );
  expect(readFileSync(join(folder, 'openapi.yaml'), 'utf8')).toContain('operationId: createPlant');
});
