/**
 * The Content-Security-Policy of HTML pages (the API reference at `/docs`): everything from
 * this origin only. Scripts: only the page's own script file, no inline script, no eval.
 * Styles: 'self' plus 'unsafe-inline', because the renderer (Scalar) injects `<style>`
 * elements at run time and only some of them carry a nonce; a nonce-only policy blocks its
 * theme. `connect-src 'self'` lets the page's "try it" client call this API and nothing else.
 */
export const PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers every HTML page carries, on top of those of every response. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': PAGE_CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};
