/**
 * Debian's Chromium driven by playwright-core (never a browser download):
 * one headless browser per test worker (`sharedBrowser`), launched with the
 * flags that keep it quiet and offline; contexts are cheap and keep nothing of
 * each other's (cookies, storage, pages), so each person in a test gets one
 * and the test files share the browser.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = process.env["SWITCHBOARD_CHROMIUM"] ?? "/usr/bin/chromium";
export const CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export const hasChromium = (): boolean => existsSync(CHROMIUM);

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

let shared: Promise<Browser> | undefined;

/**
 * The worker's browser, launched on first use (the test files share a
 * worker's modules: vitest \`isolate: false\`). Every file closes the contexts
 * it opened; the browser itself goes with the worker — playwright kills the
 * browsers it launched when the process exits. A browser that crashed or was
 * closed is launched again.
 */
export function sharedBrowser(): Promise<Browser> {
  shared ??= launchBrowser().then((browser) => {
    browser.on("disconnected", () => {
      shared = undefined;
    });
    return browser;
  });
  return shared;
}

/** A person at a desk (1280 × 800) or on a phone (390 × 844), with page errors collected. */
export async function openPage(browser: Browser, url: string, options: { phone?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext(options.phone ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(url);
  return { context, page, errors };
}
