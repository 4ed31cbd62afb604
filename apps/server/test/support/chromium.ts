import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext } from 'playwright-core';

/**
 * Headless, and quiet: no GPU, no background traffic of the browser's own (updates, sync,
 * field trials, QUIC probing), so every request it makes is one the page asked for. Web security
 * stays on (the npm package's own argument list turns it off), so CORS is what a user's browser does.
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

// `@sparticuz/chromium` unpacks its browser into the temporary folder on first use, and takes an
// existing file there as done: two test processes unpacking at once (turbo runs the packages'
// suites in parallel) must not see each other's half-written file, so the unpack holds a lock.
const LOCK = join(tmpdir(), 'plant-store-chromium.lock');
const STALE_LOCK_MS = 120_000;

async function withUnpackLock<T>(run: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      else await sleep(100);
    }
  }
  try {
    return await run();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * The Chromium to drive: `CHROMIUM_PATH` when set (a system browser, say), else the one shipped
 * inside the `@sparticuz/chromium` npm package, installed with the rest of the dev dependencies —
 * so the browser tests need nothing but Node and npm on the machine.
 *
 * @example
 * const executablePath = await chromiumExecutable(process.env);
 */
export async function chromiumExecutable(env: Record<string, string | undefined>): Promise<string> {
  if (env.CHROMIUM_PATH) return env.CHROMIUM_PATH;
  // Loaded here, not at the top: the many test files that import this support open no browser.
  const { default: npmChromium } = await import('@sparticuz/chromium');
  return withUnpackLock(() => npmChromium.executablePath());
}

/** A headless Chromium with its own temporary profile. */
export interface HeadlessChromium {
  readonly context: BrowserContext;
  /** Closes the browser and deletes its profile folder. */
  close(): Promise<void>;
}

/**
 * Launches headless Chromium ({@link chromiumExecutable}) with {@link CHROMIUM_ARGS} and a fresh
 * temporary user-data-dir.
 *
 * @example
 * const browser = await launchChromium(process.env);
 * const page = await browser.context.newPage();
 * await browser.close();
 */
export async function launchChromium(
  env: Record<string, string | undefined>,
): Promise<HeadlessChromium> {
  const executablePath = await chromiumExecutable(env);
  const { chromium } = await import('playwright-core');
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
