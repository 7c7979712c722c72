/**
 * Debian's Chromium driven by playwright-core (never a browser download):
 * one headless browser per test worker (`sharedBrowser`), launched with the
 * flags that keep it quiet and offline. Each person in a test gets a page of
 * their own context (contexts keep nothing of each other's: cookies, storage,
 * pages); a page given back is cleaned and lent again (`openPage`).
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

export interface OpenedPage {
  page: Page;
  /** The page's uncaught errors, collected while it was open. */
  errors: string[];
  /** Gives the page back: cleaned and kept for the worker's next openPage, or closed when it cannot be cleaned. */
  close(): Promise<void>;
}

type Kind = "desk" | "phone";
interface Pooled {
  context: BrowserContext;
  page: Page;
}

/**
 * Pages given back, per browser and kind, for the next openPage. A context's
 * first page costs Chromium about four times a navigation of a page it has
 * (on this 2-core machine 2.2 s of CPU against 0.6 s, measured), and the web
 * files open some sixty: reusing them was most of Chromium's share of
 * `npm test`. A page is only reused once its storage, cookies and
 * permissions are cleared and it shows about:blank, and two pages open at
 * the same time never share a context, so people in one test stay apart.
 */
const idle = new WeakMap<Browser, Record<Kind, Pooled[]>>();
const lent = new WeakMap<Browser, Set<Pooled>>();

/** Pages of this browser that were opened and not given back (a file checks none is left). */
export function pagesOpen(browser: Browser): number {
  return lent.get(browser)?.size ?? 0;
}

/** A person at a desk (1280 × 800) or on a phone (390 × 844), with page errors collected. */
export async function openPage(browser: Browser, url: string, options: { phone?: boolean } = {}): Promise<OpenedPage> {
  const kind: Kind = options.phone ? "phone" : "desk";
  let pools = idle.get(browser);
  if (!pools) idle.set(browser, (pools = { desk: [], phone: [] }));
  let open = lent.get(browser);
  if (!open) lent.set(browser, (open = new Set()));
  let pooled = pools[kind].pop();
  if (!pooled) {
    const context = await browser.newContext(options.phone ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } });
    pooled = { context, page: await context.newPage() };
  }
  const entry = pooled;
  open.add(entry);
  const errors: string[] = [];
  entry.page.on("pageerror", (error) => errors.push(error.message));
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    open.delete(entry);
    if (await clean(entry)) pools[kind].push(entry);
    else await entry.context.close().catch(() => undefined);
  };
  try {
    await entry.page.goto(url);
  } catch (error) {
    await close();
    throw error;
  }
  return { page: entry.page, errors, close };
}

/** Leaves the entry as a new one would be: one page on about:blank, no storage, cookies, permissions or listeners. */
async function clean({ context, page }: Pooled): Promise<boolean> {
  try {
    for (const other of context.pages()) if (other !== page) await other.close();
    if (page.isClosed()) return false;
    page.removeAllListeners();
    await page.evaluate(() => {
      sessionStorage.clear();
      localStorage.clear();
    }).catch(() => undefined); // an error page or about:blank has no storage to clear
    await page.goto("about:blank");
    await context.clearCookies();
    await context.clearPermissions();
    return true;
  } catch {
    return false;
  }
}
