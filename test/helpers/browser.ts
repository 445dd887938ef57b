import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { hasPeer } from './peers.js';

/** Debian's chromium; PODWARDEN_CHROMIUM overrides the path. Nothing here downloads a browser. */
export const CHROMIUM =
  process.env.PODWARDEN_CHROMIUM ?? ['/usr/bin/chromium', '/usr/lib/chromium/chromium'].find(existsSync) ?? 'chromium';

export function hasChromium(): boolean {
  return hasPeer(CHROMIUM, 'chromium');
}

/** Screenshots land here; CI keeps the folder as an artifact of the run. */
export const SCREENSHOT_DIR = resolve('test-results', 'screenshots');

export const WIDTHS = { phone: 360, desktop: 1280 } as const;

/** `extraArgs` adds Chromium switches, e.g. `--host-resolver-rules=MAP evil.example 127.0.0.1`. */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  // Made here, not by the first screenshot: a test may take its own before any other has run.
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Containers and CI run as root without a user namespace sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--font-render-hinting=none', ...extraArgs],
  });
}

export interface Shot {
  path: string;
  /** How far the content is wider than the viewport, in CSS pixels (0 when nothing overflows). */
  overflowPx: number;
}

/**
 * Loads HTML (or a URL) at a width, saves a full-page PNG as `<name>-<width>.png` and measures
 * horizontal overflow, which is what breaks a layout on a phone.
 */
export async function screenshot(
  browser: Browser,
  source: { html: string } | { url: string },
  name: string,
  width: number,
  prepare?: (page: Page) => Promise<void>,
): Promise<Shot> {
  const page = await browser.newPage();
  try {
    await page.setViewport({ width, height: 800 });
    if ('html' in source) await page.setContent(source.html, { waitUntil: 'load' });
    else await page.goto(source.url, { waitUntil: 'load' });
    if (prepare) await prepare(page);
    // A string runs in the page: this file is compiled without the DOM's types.
    const overflowPx = Number(
      await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
    );
    const path = join(SCREENSHOT_DIR, `${name}-${width}.png`);
    await page.screenshot({ path, fullPage: true });
    return { path, overflowPx };
  } finally {
    await page.close();
  }
}
