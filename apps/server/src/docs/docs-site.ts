import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildOpenApiDocument,
  serializeOpenApiDocument,
  serializeOpenApiYaml,
} from '@plant-store/schema/openapi';
import { REFERENCE_TITLE, renderReferencePage } from './reference-page.ts';
import { loadRendererScript } from './renderer-script.ts';

/**
 * Writes the API reference as a static site into `folder`: `index.html` (the same page as
 * `GET /docs`), its one script under `assets/`, and the document as `openapi.json` and
 * `openapi.yaml`. Every link is relative, so the folder can be published under any path.
 * Returns the written files, relative to `folder`.
 *
 * @example
 * writeDocsSite('apps/server/dist-docs'); // ['index.html', 'assets/api-reference.js', …]
 */
export function writeDocsSite(folder: string, document: object = buildOpenApiDocument()): string[] {
  const files: Record<string, string> = {
    'index.html': renderReferencePage({
      document,
      scriptUrl: 'assets/api-reference.js',
      documentUrl: 'openapi.json',
      title: REFERENCE_TITLE,
    }),
    'assets/api-reference.js': loadRendererScript(),
    'openapi.json': serializeOpenApiDocument(document),
    'openapi.yaml': serializeOpenApiYaml(document),
  };
  mkdirSync(join(folder, 'assets'), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  return Object.keys(files);
}
