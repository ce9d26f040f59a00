/**
 * Browser tests' helpers: Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven by
 * playwright-core, headless, with a fresh profile and nothing reached beyond loopback; a page
 * whose console errors and uncaught exceptions are collected for the test to assert on.
 * Playwright never downloads a browser here: it is given the executable.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env['TOOLGRAPH_CHROMIUM'] ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1280, height: 860 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'toolgraph-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface WatchedPage {
  readonly page: Page;
  /** Console errors and uncaught exceptions since the page opened. */
  readonly errors: string[];
}

export async function openPage(browser: Browser, url: string): Promise<WatchedPage> {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`exception: ${error.message}`));
  await page.goto(url);
  return { page, errors };
}

/** Writes a screenshot of the page to TOOLGRAPH_SCREENSHOTS/<name>.png when that folder is set. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env['TOOLGRAPH_SCREENSHOTS'];
  if (dir === undefined || dir === '') return;
  await page.screenshot({ path: join(dir, `${name}.png`) });
}
