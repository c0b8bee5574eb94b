import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Context } from 'mocha';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { PACKAGE_ROOT } from '../../engine/platform/package-root.ts';

/**
 * A real headless Chromium for the browser specs: Debian's `chromium` package (or CHROMIUM_PATH), driven by
 * puppeteer-core. Where it is not installed the specs are skipped, loudly: each suite prints the line below
 * and mocha reports its tests as pending; they never pass without a browser.
 */
export const SKIP_MESSAGE = 'SKIPPED: no chromium (install: apt-get install chromium)';
export const SCREENSHOT_DIR = path.join(PACKAGE_ROOT, '.tmp', 'screenshots');
/** The widths the layout is checked at: a narrow phone and a desktop. */
export const PHONE = { width: 375, height: 740 } as const;
export const DESKTOP = { width: 1280, height: 900 } as const;

/** The Chromium to drive: CHROMIUM_PATH when set (it must then be there), else /usr/bin/chromium when installed. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env, installed = '/usr/bin/chromium'): string | null {
  const chosen = env.CHROMIUM_PATH;
  if (chosen) {
    // Set on purpose and wrong: a mistake to report, not a browser to skip.
    if (!executable(chosen)) throw new Error(`CHROMIUM_PATH=${chosen} is not an executable file`);
    return chosen;
  }
  return executable(installed) ? installed : null;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Launches headless Chromium for a suite, from its `before` hook (`function () { ... }`, for `this`); without
 * one, prints SKIP_MESSAGE and skips the suite. Close it in `after`.
 */
export async function launchBrowserOrSkip(suite: Context, executablePath = chromiumPath()): Promise<Browser> {
  if (!executablePath) {
    process.stderr.write(`      ${SKIP_MESSAGE}: ${suite.test?.parent?.fullTitle() ?? 'browser spec'}\n`);
    suite.skip();
  }
  return puppeteer.launch({
    executablePath: executablePath!,
    headless: true,
    // As root (a container, CI) Chromium refuses to start with its sandbox; /dev/shm is small in containers.
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-dev-shm-usage', '--no-first-run'],
  });
}

/** A page and what it did: console errors, uncaught exceptions, and every request refused for leaving its origin. */
export interface WatchedPage {
  page: Page;
  consoleErrors: string[];
  pageErrors: string[];
  /** Requests to another origin: aborted (so a test never reaches the internet) and listed here. */
  foreignRequests: string[];
  /** Requests made, same origin. */
  requests: string[];
}

/** Opens a tab at `viewport` that allows requests only to `origin` (request interception) and records the rest. */
export async function watchedPage(browser: Browser, origin: string, viewport: { width: number; height: number }): Promise<WatchedPage> {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const watched: WatchedPage = { page, consoleErrors: [], pageErrors: [], foreignRequests: [], requests: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') watched.consoleErrors.push(`${message.text()} (${message.location().url ?? ''})`);
  });
  page.on('pageerror', (error) => watched.pageErrors.push(String(error)));
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = request.url();
    // data: URLs (the stylesheet's icons) are not requests to anyone.
    if (url.startsWith('data:')) return void request.continue();
    if (new URL(url).origin !== origin) {
      watched.foreignRequests.push(url);
      return void request.abort('blockedbyclient');
    }
    watched.requests.push(url);
    return void request.continue();
  });
  return watched;
}

/**
 * Saves a screenshot as .tmp/screenshots/<name>.png (git-ignored; a test artefact) and returns its path: the
 * full page, or only the viewport when a modal dialog is open (a full-page capture stretches the viewport, and
 * the dialog, drawn over it, with it).
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  const modal = await page.evaluate(() => (globalThis as any).document.querySelector('dialog[open]') !== null);
  await page.screenshot({ path: file, fullPage: !modal });
  return file;
}

/** How far the page is wider than its viewport (0: no horizontal scrolling), and the widest element causing it. */
export async function horizontalOverflow(page: Page): Promise<{ overflow: number; widest: string | null }> {
  // Runs in the page (the project compiles without the DOM's types, hence `any`).
  return page.evaluate(() => {
    const document = (globalThis as any).document;
    const viewport = document.documentElement.clientWidth;
    const overflow = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - viewport;
    let widest: string | null = null;
    let right = viewport;
    for (const element of document.querySelectorAll('body *') as any[]) {
      const box = element.getBoundingClientRect();
      if (box.width > 0 && box.right > right + 0.5) {
        right = box.right;
        widest = `${element.tagName.toLowerCase()}${element.className && typeof element.className === 'string' ? '.' + element.className.trim().split(/\s+/).join('.') : ''} (right edge ${Math.round(box.right)} px)`;
      }
    }
    return { overflow, widest };
  });
}
