import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildOpenApiDocument,
  serializeOpenApiDocument,
  serializeOpenApiYaml,
} from '@plant-store/schema/openapi';
import {
  DOCS_ASSET_FILES,
  docsAssetsFolder,
  ENCODED_SUFFIXES,
  readDocsManifest,
} from '../../src/docs/docs-assets.ts';
import { referenceServers } from './docs-build-config.ts';
import { REFERENCE_TITLE, renderReferencePage } from './reference-page.ts';

export interface DocsSiteOptions {
  /** The API's public address, written into the document's `servers`; see `referenceServers`. */
  readonly serverUrl?: string | undefined;
  /** The document to publish; the generated one by default. */
  readonly document?: object;
  /** The built API reference files to take the script from (see `ensureDocsAssets`). */
  readonly assets?: string;
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
 * `.gz` copies (nginx's `gzip_static`), copied from the built files in `options.assets` (nothing
 * is compressed here), and `openapi.json`/`.yaml` with `servers` set to `serverUrl`. Returns the
 * files written.
 *
 * @example
 * writeDocsSite('apps/server/dist-docs', { serverUrl: 'https://api.example.com' });
 * // ['index.html', 'assets/api-reference.<hash>.js', '….js.br', '….js.gz', 'openapi.json', 'openapi.yaml']
 */
export function writeDocsSite(folder: string, options: DocsSiteOptions = {}): string[] {
  const document = publicDocument(options);
  const assets = options.assets ?? docsAssetsFolder();
  const hash = readDocsManifest(assets)?.hashes.script;
  if (hash === undefined) {
    throw new Error(`no built API reference files in ${assets}: run \`pnpm docs:build\``);
  }
  const script = `assets/${DOCS_ASSET_FILES.script.replace(/\.js$/, `.${hash}.js`)}`;
  const copies = Object.fromEntries(
    ['', ...ENCODED_SUFFIXES].map((suffix) => [
      `${script}${suffix}`,
      join(assets, `${DOCS_ASSET_FILES.script}${suffix}`),
    ]),
  );
  const files: Record<string, string> = {
    'index.html': renderReferencePage({
      document,
      scriptUrl: script,
      documentUrl: 'openapi.json',
      title: REFERENCE_TITLE,
    }),
    'openapi.json': serializeOpenApiDocument(document),
    'openapi.yaml': serializeOpenApiYaml(document),
  };
  mkdirSync(join(folder, 'assets'), { recursive: true });
  // A script of an earlier build (another hash) is no longer linked: not published again.
  for (const name of readdirSync(join(folder, 'assets'))) {
    if (name.startsWith('api-reference.') && !(`assets/${name}` in copies)) {
      rmSync(join(folder, 'assets', name));
    }
  }
  for (const [name, source] of Object.entries(copies)) copyFileSync(source, join(folder, name));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(folder, name), content);
  return [...Object.keys(copies), ...Object.keys(files)];
}
