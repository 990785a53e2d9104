// Headless Chromium for the viewer's end-to-end test and benchmark: Debian's /usr/bin/chromium driven by
// playwright-core (a dev dependency) with a fresh profile and flags that keep it off the network.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // WebGL without a GPU: SwiftShader, which newer Chromium enables only when asked.
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
];

export const hasChromium = () => fs.existsSync(CHROMIUM);

/** A browser context on a fresh user-data dir (removed by the returned close). */
export async function launchChromium(
  viewport = { width: 800, height: 600 },
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'drivekit-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    deviceScaleFactor: 1,
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Page-side checks as expression strings: the tools compile without the DOM library.

/** Wait until the viewer page has loaded its source and drawn its first frame. */
export async function waitForViewerReady(page: Page, timeoutMs = 20_000): Promise<void> {
  await page.waitForFunction("document.body.dataset.ready === '1'", null, { timeout: timeoutMs });
}

/** Wait until the viewer page shows frame `i`. */
export async function waitForViewerFrame(page: Page, i: number, timeoutMs = 10_000): Promise<void> {
  await page.waitForFunction(`document.body.dataset.frame === '${i}'`, null, { timeout: timeoutMs });
}

/** The frame the viewer page shows (its `data-frame`), or null before the first one. */
export async function viewerFrame(page: Page): Promise<string | null> {
  return page.evaluate('document.body.dataset.frame ?? null');
}
