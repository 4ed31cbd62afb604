import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildOpenApiDocument,
  serializeOpenApiDocument,
  serializeOpenApiYaml,
} from '@plant-store/schema/openapi';
import { referenceServers } from './docs-build-config.ts';
import { REFERENCE_TITLE, renderReferencePage } from './reference-page.ts';
import { loadRendererScript, RENDERER_FILE } from './renderer-script.ts';

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
 * Writes the API reference as a static site into `folder`, every link relative: `index.html`
 * (the page of `GET /docs`), its script under `assets/` with a content-hashed name and `.br`/
 * `.gz` copies (nginx's `gzip_static`), and `openapi.json`/`.yaml` with `servers` set to
 * `serverUrl`. Returns the files written.
 *
 * @example
 * writeDocsSite('apps/server/dist-docs', { serverUrl: 'https://api.example.com' });
 * // ['index.html', 'assets/api-reference.<hash>.js', '….js.br', '….js.gz', 'openapi.json', 'openapi.yaml']
 */
export function writeDocsSite(folder: string, options: DocsSiteOptions = {}): string[] {
  const document = publicDocument(options);
  const renderer = loadRendererScript();
  const script = `assets/${RENDERER_FILE.replace(/\.js$/, `.${renderer.hash}.js`)}`;
  const files: Record<string, string | Buffer> = {
    'index.html': renderReferencePage({
      document,
      scriptUrl: script,
      documentUrl: 'openapi.json',
      title: REFERENCE_TITLE,
    }),
    [script]: renderer.text,
    [`${script}.br`]: renderer.encoded.br,
    [`${script}.gz`]: renderer.encoded.gzip,
    'openapi.json': serializeOpenApiDocument(document),
    'openapi.yaml': serializeOpenApiYaml(document),
  };
  mkdirSync(join(folder, 'assets'), { recursive: true });
  // A script of an earlier build (another hash) is no longer linked: not published again.
  for (const name of readdirSync(join(folder, 'assets'))) {
    if (name.startsWith('api-reference.') && !(`assets/${name}` in files)) {
      rmSync(join(folder, 'assets', name));
    }
  }
  for (const [name, content] of Object.entries(files)) writeFileSync(join(folder, name), content);
  return Object.keys(files);
}
