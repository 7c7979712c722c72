/**
 * Debian's Chromium driven by playwright-core (never a browser download):
 * one headless browser per test file, launched with the flags that keep it
 * quiet and offline; contexts are cheap, so each person in a test gets one.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = process.env["SWITCHBOARD_CHROMIUM"] ?? "/usr/bin/chromium";
export const CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export const hasChromium = (): boolean => existsSync(CHROMIUM);

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
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
