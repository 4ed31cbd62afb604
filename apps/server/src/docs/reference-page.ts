/** The page's title, on the server's `/docs` and in the static site. */
export const REFERENCE_TITLE = 'Plant Store API reference';

/** What the reference page is built from. */
export interface ReferencePageOptions {
  /** The OpenAPI document, embedded in the page: the page fetches nothing but its script. */
  readonly document: object;
  /** Where the page loads the renderer script from (absolute path, or relative to the page). */
  readonly scriptUrl: string;
  /** Where the same document can be downloaded, linked for browsers without JavaScript. */
  readonly documentUrl: string;
  readonly title: string;
}

/**
 * Markdown tables in descriptions (the introduction's error-code table): the renderer breaks
 * cell text between any two characters (`word-break: break-word`), so a narrow column can
 * shrink until a code like 40001 shows one digit per line. Here a cell breaks only between
 * words, and inside a word only when that word alone is wider than the column.
 */
export const TABLE_CSS =
  '.scalar-app .markdown td, .scalar-app .markdown th { word-break: normal; overflow-wrap: break-word; }';

/**
 * The renderer's settings. Everything that would reach another host is off: no web fonts,
 * no telemetry, no AI agent; the "try it" client sends requests straight to the API (no
 * proxy), so a CSP of `connect-src 'self'` holds.
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
 * The HTML of the API reference page: the document as an inert JSON block and the renderer's
 * settings as an attribute, read by the renderer script (Scalar's standalone bundle), which is
 * the page's only script. No inline script or style, so the page works under a CSP of
 * `script-src 'self'`.
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
 * The document as JSON that is safe inside a `<script>` element: no `<` (so no `</script>`),
 * no `&`. The renderer reads it with `JSON.parse`, which rounds integers beyond 2^53 (it showed
 * the int64 bounds of `id` as ±9223372036854776000, and turns a string bound into 0): such a
 * number (a bigint here) is left out of the page's copy; the field's description states the
 * exact range.
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
