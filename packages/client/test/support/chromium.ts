import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

// The launch of apps/server/test/support/chromium.ts, kept to what the consumer test needs
// (the server's test helpers are not a published entry of that package).

/** Debian's `chromium`, or CHROMIUM_PATH. */
export function chromiumPath(env: Record<string, string | undefined>): string {
  return env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** Headless Chromium with its own temporary profile; `close` removes the profile. */
export async function launchChromium(
  executablePath: string,
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'plant-store-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
