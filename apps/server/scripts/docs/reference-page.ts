/** The page's title, on the server's `/docs` and in the static site. */
export const REFERENCE_TITLE = 'Plant Store API reference';

/** The document (embedded: the page fetches only its script), the script's and the document's URLs. */
export interface ReferencePageOptions {
  readonly document: object;
  readonly scriptUrl: string;
  readonly documentUrl: string;
  readonly title: string;
}

/**
 * Table cells break between words, not between any two characters (the renderer's
 * `word-break: break-word` showed an error code like 40001 one digit per line).
 */
export const TABLE_CSS =
  '.scalar-app .markdown td, .scalar-app .markdown th { word-break: normal; overflow-wrap: break-word; }';

/**
 * The renderer's settings: nothing that reaches another host (fonts, telemetry, agent, proxy),
 * so a CSP of `connect-src 'self'` holds.
 */
export const RENDERER_CONFIGURATION = {
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: 'never',
  // The renderer's download would rebuild the document from the page's copy, which lacks the
  // int64 bounds (see `embedJson`); the document's description names where it is served.
  documentDownloadType: 'none',
  defaultOpenAllTags: true,
  customCss: TABLE_CSS,
} as const;

/**
 * The API reference page: the document as an inert JSON block and the settings as an attribute,
 * read by its one script (Scalar's standalone bundle); nothing inline, for `script-src 'self'`.
 *
 * @example
 * const html = renderReferencePage({
 *   document: buildOpenApiDocument(),
 *   scriptUrl: '/docs/assets/api-reference.js',
 *   documentUrl: '/openapi.json',
 *   title: 'Plant Store API reference',
 * });
 */
export function renderReferencePage(options: ReferencePageOptions): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    <link rel="icon" href="data:,">
    <title>${escapeHtml(options.title)}</title>
  </head>
  <body>
    <noscript>This API reference needs JavaScript. Read the
      <a href="${escapeHtml(options.documentUrl)}">OpenAPI document</a> instead.</noscript>
    <script id="api-reference" type="application/json" data-configuration="${escapeHtml(
      JSON.stringify(RENDERER_CONFIGURATION),
    )}">${embedJson(options.document)}</script>
    <script src="${escapeHtml(options.scriptUrl)}"></script>
  </body>
</html>
`;
}

/**
 * The document as JSON safe inside `<script>` (no `<`, `>`, `&`). The renderer's `JSON.parse`
 * would round a bound beyond 2^53 (±9223372036854776000), so such a bigint is left out of the
 * page's copy; the field's description states the exact range.
 */
function embedJson(value: object): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint' ? (isSafe(item) ? Number(item) : undefined) : item,
  )
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
}

function isSafe(integer: bigint): boolean {
  return integer <= BigInt(Number.MAX_SAFE_INTEGER) && integer >= BigInt(Number.MIN_SAFE_INTEGER);
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
