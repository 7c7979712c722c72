/**
 * `useStream` from `@langchain/langgraph-sdk/react` 1.15 in a small React
 * page (use-stream/, built here with Vite and served by the hub as its web
 * root) in Chromium: it streams the review demo's draft, shows the interrupt,
 * resumes with `submit(undefined, { command: { resume } })`; and after a page
 * reload mid-run it rejoins the run (`reconnectOnMount`, runs.joinStream from
 * the run's first event) with every token once: what the page shows is
 * always a prefix of the draft, and right after the reload it already holds
 * everything shown before it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import type { Browser, Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REVIEW_DRAFT } from "../../../../hub/index.ts";
import { hasChromium, openPage, pagesOpen, sharedBrowser } from "../../../support/browser.ts";
import { lgHub, sdk } from "./helpers.ts";

const UI = { timeout: 20_000 };
const root = fileURLToPath(new URL("./use-stream/", import.meta.url));
let outDir = "";
let browser: Browser | undefined;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), "switchboard-use-stream-"));
  // The production build, whatever NODE_ENV vitest set (see client/web/build.mjs).
  const env = process.env["NODE_ENV"];
  process.env["NODE_ENV"] = "production";
  try {
    await build({
      root,
      configFile: false,
      base: "/",
      mode: "production",
      logLevel: "warn",
      plugins: [react()],
      resolve: { alias: { ws: fileURLToPath(new URL("../../../../client/web/src/no-ws.ts", import.meta.url)) } },
      build: { outDir, emptyOutDir: true, target: "es2022", sourcemap: false, reportCompressedSize: false },
    });
  } finally {
    process.env["NODE_ENV"] = env;
  }
  if (hasChromium()) browser = await sharedBrowser();
}, 120_000);

afterAll(async () => {
  if (browser) expect(pagesOpen(browser)).toBe(0);
  rmSync(outDir, { recursive: true, force: true });
});

const text = (page: Page, testId: string) => page.getByTestId(testId).first().textContent({ timeout: 1_000 }).then((t) => t ?? "", () => "");

/** Polls the streamed message until the draft is complete or the interrupt shows; every observation must be a prefix of the draft. */
async function watchTokens(page: Page, until: (seen: string) => boolean): Promise<string[]> {
  const seen: string[] = [];
  const deadline = Date.now() + UI.timeout;
  for (;;) {
    const messages = await page.getByTestId("ai-message").allTextContents();
    expect(messages.length, "one AI message at most").toBeLessThanOrEqual(1);
    const current = messages[0] ?? "";
    expect(REVIEW_DRAFT.startsWith(current), `"${current}" is a prefix of the draft`).toBe(true);
    if (current !== seen.at(-1)) seen.push(current);
    if (until(current)) return seen;
    if (Date.now() > deadline) throw new Error(`gave up waiting; saw ${JSON.stringify(seen.at(-1))}`);
    await page.waitForTimeout(15);
  }
}

describe.skipIf(!hasChromium())("useStream in Chromium", { timeout: 120_000 }, () => {
  it("streams the draft, shows the interrupt, resumes with submit(undefined, { command: { resume } })", async () => {
    const hub = await lgHub({ webRoot: outDir, demoTokenDelayMs: 15 });
    const { page, errors, close } = await openPage(browser!, hub.url);
    try {
      await page.getByRole("button", { name: "Start" }).click();
      const seen = await watchTokens(page, (t) => t.length > 0 && t.length < REVIEW_DRAFT.length);
      expect(seen.at(-1)!.length).toBeGreaterThan(0);
      await page.getByRole("region", { name: "Interrupt" }).waitFor(UI);
      expect(await text(page, "interrupt-kind")).toBe("review");
      expect(await text(page, "draft")).toBe(REVIEW_DRAFT);
      const threadId = decodeURIComponent(new URL(page.url()).hash.slice(1));
      const client = await sdk(hub);
      const thread = await client.threads.get(threadId);
      const [pending] = Object.values(thread.interrupts).flat();
      expect(await text(page, "interrupt-id")).toBe(pending!.id);

      await page.getByRole("button", { name: "Approve" }).click();
      await page.getByTestId("decision").filter({ hasText: "ship it" }).waitFor(UI);
      expect(await text(page, "finalize-calls")).toBe("1");
      expect((await client.threads.get(threadId)).status).toBe("idle");
      expect(await text(page, "error")).toBe("");
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it("a reload mid-run rejoins the run (reconnectOnMount): no token lost or doubled, no second run", async () => {
    const hub = await lgHub({ webRoot: outDir, demoTokenDelayMs: 60 });
    const { page, errors, close } = await openPage(browser!, hub.url);
    try {
      const joins: string[] = [];
      page.on("request", (r) => {
        if (r.method() === "GET" && /\/threads\/[^/]+\/runs\/[^/]+\/stream/.test(new URL(r.url()).pathname)) joins.push(r.url());
      });
      await page.getByRole("button", { name: "Start" }).click();
      const before = await watchTokens(page, (t) => t.split(" ").length >= 12);
      const shown = before.at(-1)!;
      await page.reload();
      // Right after the reload the page already has every token it showed before, then the rest.
      const after = await watchTokens(page, (t) => t.length > 0);
      expect(after.at(-1)!.length).toBeGreaterThanOrEqual(shown.length);
      const rest = await watchTokens(page, (t) => t === REVIEW_DRAFT || t === "");
      await page.getByRole("region", { name: "Interrupt" }).waitFor(UI);
      expect(rest.every((t) => REVIEW_DRAFT.startsWith(t))).toBe(true);
      expect(await text(page, "draft")).toBe(REVIEW_DRAFT);
      expect(joins.length).toBeGreaterThanOrEqual(1);

      const threadId = decodeURIComponent(new URL(page.url()).hash.slice(1));
      const client = await sdk(hub);
      expect(await client.runs.list(threadId)).toHaveLength(1);
      await page.getByRole("button", { name: "Approve" }).click();
      await page.getByTestId("decision").filter({ hasText: "ship it" }).waitFor(UI);
      expect(await text(page, "finalize-calls")).toBe("1");
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
