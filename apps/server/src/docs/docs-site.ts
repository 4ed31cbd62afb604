import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildOpenApiDocument,
  serializeOpenApiDocument,
  serializeOpenApiYaml,
} from '@plant-store/schema/openapi';
import { referenceServers } from './docs-build-config.ts';
import { REFERENCE_TITLE, renderReferencePage } from './reference-page.ts';
import { loadRendererScript } from './renderer-script.ts';

export interface DocsSiteOptions {
  /** The API's public address, written into the document's `servers`; see `referenceServers`. */
  readonly serverUrl?: string | undefined;
  /** The document to publish; the generated one by default. */
  readonly document?: object;
}

/**
 * The document a static reference publishes: the generated one with `servers` set to the API's
 * public address (the served `/openapi.json` says `/`, the server it comes from).
 */
export function publicDocument(options: DocsSiteOptions = {}): object {
  const document = options.document ?? buildOpenApiDocument();
  return { ...document, servers: referenceServers(options.serverUrl) };
}

/**
 * Writes the API reference as a static site into `folder`: `index.html` (the same page as
 * `GET /docs`), its one script under `assets/`, and the document as `openapi.json` and
 * `openapi.yaml`, all with `servers` set to `serverUrl`. Every link is relative, so the folder
 * can be published under any path. Returns the written files, relative to `folder`.
 *
 * @example
 * writeDocsSite('apps/server/dist-docs', { serverUrl: 'https://api.example.com' });
 * // ['index.html', 'assets/api-reference.js', 'openapi.json', 'openapi.yaml']
 */
export function writeDocsSite(folder: string, options: DocsSiteOptions = {}): string[] {
  const document = publicDocument(options);
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
