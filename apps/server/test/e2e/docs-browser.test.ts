import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ERROR_ENTRIES } from '@plant-store/schema';
import { buildOpenApiDocument } from '@plant-store/schema/openapi';
import type { Locator, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDocsSite } from '../../scripts/docs/docs-site.ts';
import {
  DOCS_ASSET_FILES,
  docsAssetsFolder,
  readDocsManifest,
} from '../../src/docs/docs-assets.ts';
import { type HeadlessChromium, launchChromium } from '../support/chromium.ts';
import { startTestServer, type TestServer } from '../support/start-test-server.ts';
import { type StaticServer, serveFolder } from '../support/static-server.ts';

// Screenshots go to a build-output folder (gitignored), to look at after a run.
const SCREENSHOTS = fileURLToPath(new URL('../../test-results/docs/', import.meta.url));
const document = buildOpenApiDocument();
// The page renders lazily; on a busy CI machine that can take seconds.
const POLL = { timeout: 20_000 };

/** The text a reader sees in `locator`: rendered, one line per block. */
function visibleText(locator: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: a Playwright Locator, not a DOM node; the rendered text is the point
  return locator.innerText();
}

/** What the page loaded and complained about while a test looked at it. */
interface PageRecord {
  readonly requests: string[];
  readonly problems: string[];
  readonly responses: Response[];
}

async function openReference(browser: HeadlessChromium, url: string): Promise<[Page, PageRecord]> {
  const page = await browser.context.newPage();
  const record: PageRecord = { requests: [], problems: [], responses: [] };
  page.on('response', (response) => record.responses.push(response));
  page.on('request', (request) => record.requests.push(request.url()));
  page.on('pageerror', (error) => record.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) record.problems.push(message.text());
  });
  const response = await page.goto(url);
  expect(response?.status()).toBe(200);
  return [page, record];
}

/**
 * Checks, as a reader would, that the page shows the create-plant operation, the three
 * schemas of the specification and the bearer scheme; then that every request the page made
 * went to 127.0.0.1 and nothing broke the page's CSP. Saves a screenshot.
 */
async function expectCompleteReference(page: Page, record: PageRecord, screenshot: string) {
  const post = document.paths?.['/plants']?.post;
  await page.getByRole('link', { name: new RegExp(post?.summary ?? 'missing summary') }).click();
  const operation = page.locator('section', {
    has: page.getByRole('heading', { name: post?.summary ?? '', exact: true }),
  });
  await expect.poll(() => visibleText(operation.last()), POLL).toMatch(/POST[\s\S]*\/plants/);
  const operationText = await visibleText(operation.last());
  expect(operationText).toContain('NewPlant');
  expect(operationText).toMatch(/\bid\b[\s\S]*int64/);
  // The int64 bounds exactly, never as the page's JSON.parse rounds them (±9223372036854776000).
  expect(operationText).toContain('-9223372036854775808 to 9223372036854775807');
  expect(operationText).not.toMatch(/92233720368547760{3}|\b(min|max): /);

  const schemas = document.components?.schemas ?? {};
  const models = page.getByRole('region', { name: 'Models' });
  for (const name of ['NewPlant', 'Plant', 'Error']) {
    await page.locator(`a[href="#models/${name}"]`).click();
    const description = (schemas[name] as { description: string }).description;
    // The description up to its first code span, which the page renders as markup.
    const headline = description.split('`')[0]?.trim() ?? '';
    await expect.poll(() => visibleText(models), POLL).toContain(headline);
  }
  const modelsText = await visibleText(models);
  expect(modelsText).toMatch(/\berror\b[\s\S]*int32/);
  expect(modelsText).toMatch(/\bmessage\b/);
  expect(modelsText).toContain('-9223372036854775808 to 9223372036854775807');
  expect(modelsText).not.toMatch(/92233720368547760{3}|\b(min|max): /);

  await expect.poll(() => page.getByText('bearerAuth').count(), POLL).toBeGreaterThan(0);
  await expect.poll(() => page.getByText('Bearer Token').count(), POLL).toBeGreaterThan(0);

  await page.getByRole('link', { name: new RegExp(post?.summary ?? '') }).click();
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, screenshot) });

  expect(record.requests.length).toBeGreaterThanOrEqual(2);
  const elsewhere = record.requests.filter((url) => {
    const { protocol, hostname } = new URL(url);
    return !(protocol === 'data:' || protocol === 'blob:' || hostname === '127.0.0.1');
  });
  expect(elsewhere).toEqual([]);
  expect(record.problems).toEqual([]);
}

/**
 * The introduction's error-code table as the reader sees it: per row the `error` cell's text
 * and how many lines the browser laid it out on (a text node's line boxes).
 */
async function errorTableCells(page: Page): Promise<{ text: string; lines: number }[]> {
  const table = page.locator('.markdown table', { hasText: String(ERROR_ENTRIES[0]?.code) });
  await expect.poll(() => table.count(), POLL).toBe(1);
  await table.scrollIntoViewIfNeeded();
  return table.locator('tbody tr td:first-child').evaluateAll((cells) =>
    cells.map((cell) => {
      const range = cell.ownerDocument.createRange();
      range.selectNodeContents(cell);
      return { text: cell.textContent?.trim() ?? '', lines: range.getClientRects().length };
    }),
  );
}

describe('the API reference in headless Chromium', () => {
  let browser: HeadlessChromium;
  let server: TestServer;
  let site: StaticServer;
  let siteFolder: string;

  beforeAll(async () => {
    browser = await launchChromium(process.env);
    server = await startTestServer();
    siteFolder = mkdtempSync(join(tmpdir(), 'plant-store-docs-site-'));
    writeDocsSite(siteFolder);
    site = await serveFolder(siteFolder);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.dispose();
    await site?.close();
    if (siteFolder) rmSync(siteFolder, { recursive: true, force: true });
  });

  it('GET /docs on the server shows the operation, the schemas and the bearer scheme, offline', async () => {
    const [page, record] = await openReference(browser, `${server.url}/docs`);
    await expectCompleteReference(page, record, 'server-docs.png');
    const assets = docsAssetsFolder();
    const hash = readDocsManifest(assets)?.hashes.script;
    const brotliBytes = statSync(join(assets, `${DOCS_ASSET_FILES.script}.br`)).size;
    expect(record.requests).toContain(`${server.url}/docs/assets/api-reference.js?v=${hash}`);
    // The browser got the script compressed as brotli, which it offers for 127.0.0.1 (a
    // potentially trustworthy origin: `gzip, deflate, br, zstd`), cacheable for a year.
    const script = record.responses.find((response) => response.url().includes('/docs/assets/'));
    expect(await script?.request().headerValue('accept-encoding')).toMatch(/\bbr\b/);
    const headers = await script?.allHeaders();
    expect(headers?.['content-encoding']).toBe('br');
    expect(headers?.['content-length']).toBe(String(brotliBytes));
    expect(headers?.['cache-control']).toBe('public, max-age=31536000, immutable');
  }, 120_000);

  it('the page is interactive: its client sends createPlant to this server, within the CSP', async () => {
    const [page, record] = await openReference(browser, `${server.url}/docs`);
    await page.getByRole('link', { name: /Create a plant/ }).click();
    await page.getByRole('button', { name: 'Test Request (post /plants)' }).click();
    const client = page.getByRole('dialog');
    await client.getByPlaceholder('Token').click();
    await page.keyboard.type(server.token);
    const answered = page.waitForResponse(
      (response) =>
        response.url() === `${server.url}/plants` && response.request().method() === 'POST',
    );
    await client.getByRole('button', { name: /Send/ }).first().click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(await response.request().headerValue('authorization')).toBe(`Bearer ${server.token}`);
    await expect.poll(() => visibleText(client), POLL).toMatch(/"name": "Monstera"/);
    expect(record.problems).toEqual([]);
    // The example plant (id 10) was really stored: another name under id 10 is a conflict.
    const conflict = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 10, name: 'Fern' }),
    });
    expect(conflict.status).toBe(409);
  }, 120_000);

  it('renders the error-code table of the introduction as a table: each code on one line', async () => {
    const [page, record] = await openReference(browser, `${server.url}/docs`);
    const cells = await errorTableCells(page);
    expect(cells.map((cell) => cell.text)).toEqual(ERROR_ENTRIES.map((e) => String(e.code)));
    for (const cell of cells) expect(cell, `error ${cell.text}`).toMatchObject({ lines: 1 });
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'intro-error-table.png') });
    expect(record.problems).toEqual([]);
  }, 120_000);

  it('the static site built for PUBLIC_API_URL, opened from disk, shows that server', async () => {
    const folder = join(siteFolder, 'public');
    writeDocsSite(folder, { serverUrl: 'https://api.example.com' });
    const [page, record] = await openReference(
      browser,
      pathToFileURL(join(folder, 'index.html')).href,
    );
    const serverBox = page.getByText('https://api.example.com', { exact: true });
    await expect.poll(() => serverBox.count(), POLL).toBeGreaterThan(0);
    expect(await visibleText(page.locator('body'))).not.toContain('file:/');
    const cells = await errorTableCells(page);
    for (const cell of cells) expect(cell, `error ${cell.text}`).toMatchObject({ lines: 1 });
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'static-docs-from-disk.png') });
    const elsewhere = record.requests.filter((url) => !/^(file|data|blob):/.test(url));
    expect(elsewhere).toEqual([]);
    expect(record.problems).toEqual([]);
  }, 120_000);

  it('the static site of `pnpm docs:build` shows the same, offline', async () => {
    const [page, record] = await openReference(browser, `${site.url}/`);
    await expectCompleteReference(page, record, 'static-docs.png');
    expect(record.requests).toContain(
      `${site.url}/assets/api-reference.${readDocsManifest(docsAssetsFolder())?.hashes.script}.js`,
    );
  }, 120_000);
});
