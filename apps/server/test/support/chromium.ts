import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Where Debian's `chromium` package installs the browser. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Headless, and quiet: no GPU, no background traffic of the browser's own (updates, sync,
 * field trials, QUIC probing), so every request it makes is one the page asked for.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** The browser to drive, or why there is none and how to get one. */
export type ChromiumLookup =
  | { readonly found: true; readonly executablePath: string }
  | { readonly found: false; readonly reason: string };

/**
 * Finds headless Chromium: `CHROMIUM_PATH` when set, else Debian's `/usr/bin/chromium`.
 *
 * @example
 * const lookup = findChromium(process.env);
 * if (!lookup.found) console.warn(lookup.reason);
 */
export function findChromium(env: Record<string, string | undefined>): ChromiumLookup {
  const executablePath = env.CHROMIUM_PATH || DEFAULT_CHROMIUM_PATH;
  try {
    accessSync(executablePath, constants.X_OK);
    return { found: true, executablePath };
  } catch {
    return {
      found: false,
      reason:
        `no Chromium executable at ${executablePath}. Install it with ` +
        '`apt-get update && apt-get install -y chromium` (as .ci/run does), or set CHROMIUM_PATH ' +
        'to a Chromium binary.',
    };
  }
}

/** A headless Chromium with its own temporary profile. */
export interface HeadlessChromium {
  readonly context: BrowserContext;
  /** Closes the browser and deletes its profile folder. */
  close(): Promise<void>;
}

/**
 * Launches headless Chromium with {@link CHROMIUM_ARGS} and a fresh temporary user-data-dir.
 *
 * @example
 * const browser = await launchChromium('/usr/bin/chromium');
 * const page = await browser.context.newPage();
 * await browser.close();
 */
export async function launchChromium(executablePath: string): Promise<HeadlessChromium> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'plant-store-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: [...CHROMIUM_ARGS],
    viewport: { width: 1400, height: 1000 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
