/**
 * Shared fixtures of the web app's end-to-end files: the worker's Chromium,
 * a real hub on port 0 (demo + test assistants, a JWT secret so that every
 * person has a name and roles), a browser context per person signed in by
 * link, and SDK clients for "someone elsewhere". Everything is closed after
 * the file; a page error fails the test that opened the page.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { HubClient } from "../../client/index.ts";
import { signInLink } from "../../client/cli/commands/token.ts";
import { mintToken } from "../../hub/auth/index.ts";
import { silentLogger, startHub, type HubConfig } from "../../hub/index.ts";
import { openPage, pagesOpen, sharedBrowser } from "../support/browser.ts";
import { webAssistants } from "./assistants.ts";

export const SECRET = "web-e2e-secret-that-is-32-bytes-long!";
export const UI = { timeout: 15_000 };
export type RunningHub = Awaited<ReturnType<typeof startHub>>;

export function buildWebApp(): void {
  execFileSync(process.execPath, [join(import.meta.dirname, "../../client/web/build.mjs")], { stdio: "inherit" });
}

export const token = (sub: string, name: string, roles: string[], expiresIn = "1h"): Promise<string> => mintToken({ sub, name, roles, expiresIn }, SECRET);

export class WebHarness {
  browser!: Browser;
  readonly #cleanups: Array<() => Promise<void> | void> = [];

  async open(): Promise<void> {
    buildWebApp();
    this.browser = await sharedBrowser();
  }

  async close(): Promise<void> {
    for (const fn of this.#cleanups.splice(0).reverse()) await fn();
    // The browser and its pages stay for the worker's next file; every page this file opened was given back.
    if (this.browser) expect(pagesOpen(this.browser)).toBe(0);
  }

  defer(fn: () => Promise<void> | void): void {
    this.#cleanups.push(fn);
  }

  async hub(config: HubConfig & { tokenDelayMs?: number } = {}): Promise<RunningHub> {
    const { tokenDelayMs, ...rest } = config;
    const hub = await startHub({ port: 0, dataDir: null, jwtSecret: SECRET, logger: silentLogger, assistants: webAssistants({ tokenDelayMs: tokenDelayMs ?? 2 }), ...rest });
    this.defer(() => hub.close());
    return hub;
  }

  sdk(hub: { url: string }, bearer?: string): HubClient {
    const client = new HubClient({ url: hub.url, ...(bearer ? { token: bearer } : {}), reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
    this.defer(() => client.close());
    return client;
  }

  /** A person signed in by link, at a desk or on a phone. */
  async person(hub: { url: string }, sub: string, name: string, roles: string[], options: { phone?: boolean; route?: string } = {}): Promise<Page> {
    const link = signInLink(hub.url, await token(sub, name, roles)) + (options.route ? `&next=${encodeURIComponent(options.route)}` : "");
    const { page, errors, close } = await openPage(this.browser, link, options);
    this.defer(async () => {
      expect(errors).toEqual([]);
      await close();
    });
    await page.getByLabel(new RegExp(`Signed in as ${name}`)).waitFor(UI);
    return page;
  }
}

/** Resolves with the thread's first pending question (an SDK client subscribed to its input channel). */
export async function firstQuestion(client: HubClient, threadId: string): Promise<{ interrupt_id: string }> {
  const thread = client.thread(threadId);
  await thread.subscribe(["input", "lifecycle"]);
  if (thread.interrupts[0]) return thread.interrupts[0];
  return new Promise((resolve) => thread.on("interrupts", (list) => list[0] && resolve(list[0])));
}
