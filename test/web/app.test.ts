/**
 * The web app end to end: Debian's Chromium (playwright-core) against a real
 * hub on port 0 serving the built app. Reviewers race, an observer watches,
 * the hub restarts mid-run, parallel questions are answered from two tabs,
 * and JWT sign-in works by link and ends when the token expires. The
 * worker's browser; a context per person.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { HubClient } from "../../client/index.ts";
import { signInLink } from "../../client/cli/commands/token.ts";
import { mintToken } from "../../hub/auth/index.ts";
import { REVIEW_DRAFT, demoAssistants, silentLogger, startHub, type HubConfig } from "../../hub/index.ts";
import { hasChromium, openPage, pagesOpen, sharedBrowser } from "../support/browser.ts";

const SECRET = "web-e2e-secret-that-is-32-bytes-long!";
const UI = { timeout: 15_000 };
type RunningHub = Awaited<ReturnType<typeof startHub>>;

let browser: Browser;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  execFileSync(process.execPath, [join(import.meta.dirname, "../../client/web/build.mjs")], { stdio: "inherit" });
  browser = await sharedBrowser();
}, 60_000);

afterAll(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
  // The browser and its pages stay for the worker's next file; every page this file opened was given back.
  if (browser) expect(pagesOpen(browser)).toBe(0);
});

async function hubWith(config: HubConfig & { tokenDelayMs?: number } = {}): Promise<RunningHub> {
  const { tokenDelayMs, ...rest } = config;
  const hub = await startHub({ port: 0, dataDir: null, logger: silentLogger, assistants: demoAssistants({ tokenDelayMs: tokenDelayMs ?? 2 }), ...rest });
  cleanups.push(() => hub.close());
  return hub;
}

function sdk(hub: { url: string }, token?: string): HubClient {
  const client = new HubClient({ url: hub.url, ...(token ? { token } : {}), reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
  cleanups.push(() => client.close());
  return client;
}

async function person(url: string): Promise<Page> {
  const { page, errors, close } = await openPage(browser, url);
  cleanups.push(async () => {
    expect(errors).toEqual([]);
    await close();
  });
  return page;
}

const token = (sub: string, name: string, roles: string[], expiresIn = "1h") => mintToken({ sub, name, roles, expiresIn }, SECRET);

describe.skipIf(!hasChromium())("the web app in Chromium", { timeout: 60_000 }, () => {
  it("serves React's production build, whatever NODE_ENV the builder ran under (vitest sets test)", async () => {
    const hub = await hubWith();
    const html = await (await fetch(`${hub.url}/`)).text();
    const script = /src="(\/assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const js = await (await fetch(`${hub.url}${script}`)).text();
    expect(js).toContain("react.transitional.element");
    expect(js).not.toContain("react-stack-top-frame"); // only in React's development build
  });

  it("two reviewers see the item appear live, race Approve: one wins, the other is told who", async () => {
    const hub = await hubWith({ jwtSecret: SECRET });
    const ada = await person(signInLink(hub.url, await token("u_ada", "Ada", ["reviewer", "observer"])));
    const bob = await person(signInLink(hub.url, await token("u_bob", "Bob", ["reviewer", "observer"])));
    for (const page of [ada, bob]) await page.getByText("Nothing waits for you.").waitFor(UI);

    const operator = sdk(hub, await token("u_olive", "Olive", ["operator", "observer"]));
    const thread = operator.thread("race-1");
    await thread.run("review", { topic: "the launch" });

    // The item appears in both inboxes without a reload, with the start of its draft.
    for (const page of [ada, bob]) {
      const link = page.getByRole("link", { name: /^Dear team, the quarterly release/ });
      await link.waitFor(UI);
      await link.click();
      await page.getByRole("button", { name: "Approve" }).waitFor(UI);
      // The form says what it is and why (the demo's review question declares no response schema).
      await page.getByText("Answer form: any JSON value (the question declares no response schema)").waitFor(UI);
    }
    // Both press Approve at the same moment (one shared clock, one timer in each page).
    const at = Date.now() + 400;
    const press = (page: Page) =>
      page.evaluate((when) => new Promise<void>((resolve) => setTimeout(() => (document.querySelector<HTMLButtonElement>('[data-shortcut="approve"]')?.click(), resolve()), when - Date.now())), at);
    await Promise.all([press(ada), press(bob)]);

    const outcome = async (page: Page) => {
      const alert = page.getByRole("alert").filter({ hasText: "answered first" });
      const sent = page.getByRole("status").filter({ hasText: "Answer sent" });
      // On a loaded machine one page's timer may fire after the winner's answer already reached
      // it: its button is disabled by then and the page says who answered instead of refusing.
      const told = page.getByRole("status").filter({ hasText: /^Answered by / });
      await alert.or(sent).or(told).first().waitFor(UI);
      if ((await sent.count()) > 0) return "won";
      return (await alert.count()) > 0 ? ((await alert.textContent()) ?? "") : ((await told.textContent()) ?? "");
    };
    // (Usually the loser's answer reached the hub and was refused with already_answered, naming the winner.)
    const results = await Promise.all([outcome(ada), outcome(bob)]);
    const winners = results.filter((r) => r === "won");
    expect(winners).toHaveLength(1);
    const loser = results.find((r) => r !== "won") ?? "";
    const winnerName = results[0] === "won" ? "Ada" : "Bob";
    expect(loser).toMatch(new RegExp(`^(${winnerName} answered first|Answered by ${winnerName} )`));

    // The run's page shows the resume and the answer, with who gave it.
    const winnerPage = results[0] === "won" ? ada : bob;
    await winnerPage.getByRole("link", { name: "Watch the run" }).click();
    await winnerPage.locator('[aria-label="Run status"]').getByText("completed").waitFor(UI);
    await winnerPage.getByText(`answered by ${winnerName}`).waitFor(UI);
    await winnerPage.getByText('{"approve":true}').waitFor(UI);
  });

  it("an observer watches review: the draft grows, the question, the answer and the final state; no answer controls", async () => {
    const hub = await hubWith({ jwtSecret: SECRET, tokenDelayMs: 25 });
    const watcher = await person(signInLink(hub.url, await token("u_obi", "Obi", ["observer"])));
    await watcher.getByText("review items go to reviewers").waitFor(UI);
    // An observer creates no thread by watching: the operator's app made it (POST /threads).
    const oliveToken = await token("u_olive", "Olive", ["operator", "observer"]);
    expect((await fetch(`${hub.url}/threads`, { method: "POST", headers: { authorization: `Bearer ${oliveToken}`, "content-type": "application/json" }, body: JSON.stringify({ thread_id: "watched-1" }) })).ok).toBe(true);
    await watcher.goto(`${hub.url}/#/threads/watched-1`);
    await watcher.getByRole("heading", { name: "Messages" }).waitFor(UI);

    const operator = sdk(hub, oliveToken);
    const thread = operator.thread("watched-1");
    await thread.run("review", { topic: "the launch" });

    const text = watcher.getByTestId("message-text");
    await text.waitFor(UI);
    const lengths: number[] = [];
    for (let i = 0; i < 40 && (lengths.length < 2 || lengths.at(-1) === lengths[0]); i++) {
      lengths.push(((await text.textContent()) ?? "").length);
      await watcher.waitForTimeout(60);
    }
    expect(lengths.at(-1)).toBeGreaterThan(lengths[0] ?? 0);
    expect(lengths.at(-1)).toBeLessThan(REVIEW_DRAFT.length);

    // Then the question; the observer may open it but gets no answer controls.
    await watcher.getByRole("link", { name: "Open" }).waitFor(UI);
    expect(await text.textContent()).toBe(REVIEW_DRAFT);
    expect(await watcher.getByRole("link", { name: "Open to answer" }).count()).toBe(0);
    await watcher.getByRole("link", { name: "Open" }).click();
    await watcher.getByText("Read only.").waitFor(UI);
    expect(await watcher.getByRole("button", { name: /Approve|Reject|Claim|Send/ }).count()).toBe(0);
    await watcher.getByRole("link", { name: "Run view" }).click();

    const reviewer = sdk(hub, await token("u_rita", "Rita", ["reviewer", "observer"]));
    const reviewed = reviewer.thread("watched-1");
    await reviewed.subscribe(["input"]);
    const [question] = reviewed.interrupts.length > 0 ? reviewed.interrupts : [await new Promise<{ interrupt_id: string }>((resolve) => reviewed.on("interrupts", (list) => list[0] && resolve(list[0])))];
    await reviewed.respond(question?.interrupt_id ?? "", { approve: true });

    await watcher.getByText("answered by Rita").waitFor(UI);
    await watcher.locator('[aria-label="Run status"]').getByText("completed").waitFor(UI);
    await watcher.getByRole("group", { name: "Thread state" }).getByText("decision").first().waitFor(UI);
    expect(await watcher.getByRole("group", { name: "Thread state" }).textContent()).not.toContain("answer:");
  });

  it("the hub restarts mid-run: every open tab reconnects, shows the current state, and no text is doubled", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-web-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    let hub = await startHub({ port: 0, dataDir: dir, logger: silentLogger, assistants: demoAssistants({ tokenDelayMs: 40 }) });
    const port = hub.port;
    cleanups.push(() => hub.close());
    const page = await person(`${hub.url}/#/threads/restart-1`);
    const other = await person(`${hub.url}/#/threads/restart-1`);
    const inbox = await person(`${hub.url}/#/`);
    const tabs = [page, other];
    for (const tab of tabs) await tab.getByRole("heading", { name: "Messages" }).waitFor(UI);
    const starter = new HubClient({ url: hub.url, reconnect: false });
    await starter.thread("restart-1").run("review", { topic: "resilience" });
    for (const tab of tabs) await tab.waitForFunction(() => (document.querySelector('[data-testid="message-text"]')?.textContent?.length ?? 0) > 30, undefined, UI);
    starter.close();

    await hub.close();
    for (const tab of [...tabs, inbox]) await tab.getByRole("status").filter({ hasText: "Reconnecting" }).waitFor(UI);
    hub = await startHub({ port, dataDir: dir, logger: silentLogger, assistants: demoAssistants({ tokenDelayMs: 2 }) });
    for (const tab of [...tabs, inbox]) await tab.getByRole("status").filter({ hasText: "Reconnecting" }).waitFor({ state: "detached", ...UI });

    // The run was cut by the restart; the page says so and lets the operator continue it.
    await page.getByRole("button", { name: "Continue from the last checkpoint" }).click();
    for (const tab of tabs) {
      await tab.getByRole("link", { name: "Open to answer" }).waitFor(UI);
      await tab.waitForFunction((draft) => document.querySelector('[data-testid="message-text"]')?.textContent === draft, REVIEW_DRAFT, UI);
      const all = await tab.locator("main").textContent();
      expect(all?.split("Dear team, the quarterly release").length).toBe(4); // message, question summary, state: once each
      expect(await tab.getByTestId("message-text").count()).toBe(1);
    }
    // The inbox that was open through the restart lists the new question once.
    await inbox.getByRole("link", { name: /^Dear team, the quarterly release/ }).waitFor(UI);
    expect(await inbox.getByRole("link", { name: /^Dear team, the quarterly release/ }).count()).toBe(1);
  });

  it("parallel-review: three questions answered from two tabs, the run completes", async () => {
    const hub = await hubWith();
    const a = await person(`${hub.url}/#/`);
    const b = await person(`${hub.url}/#/`);
    const operator = sdk(hub);
    await operator.thread("parallel-1").run("parallel-review", {});
    for (const page of [a, b]) await page.getByRole("link", { name: /^Review by r\d$/ }).nth(2).waitFor(UI);

    const answer = async (page: Page, who: string) => {
      await page.getByRole("link", { name: `Review by ${who}`, exact: true }).click();
      await page.getByRole("button", { name: "Approve" }).click();
      await page.getByRole("status").filter({ hasText: "Answer sent" }).waitFor(UI);
      await page.getByRole("link", { name: "← Inbox" }).click();
    };
    await answer(a, "r1");
    await answer(b, "r2");
    await answer(a, "r3");
    await a.goto(`${hub.url}/#/threads/parallel-1`);
    await a.locator('[aria-label="Run status"]').getByText("completed").waitFor(UI);
    await a.getByRole("heading", { name: "Questions" }).waitFor(UI);
    expect(await a.locator(".question-done").filter({ hasText: "answered by Developer" }).count()).toBe(3);
  });

  it("the threads page is live: a run started elsewhere appears, and its status follows it", async () => {
    const hub = await hubWith({ tokenDelayMs: 20 });
    const page = await person(`${hub.url}/#/threads`);
    await page.getByText("No threads yet.").waitFor(UI);
    expect(await page.getByRole("button", { name: "Refresh" }).count()).toBe(0);

    const operator = sdk(hub);
    const thread = operator.thread("live-threads-1");
    await thread.run("review", { topic: "the launch" });
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "Thread live-threads-1" }) });
    await row.getByText("running").waitFor(UI);
    await row.getByText("waiting for review").waitFor(UI);
    await vi.waitFor(() => expect(thread.interrupts).toHaveLength(1), UI);
    await thread.respond(thread.interrupts[0]?.interrupt_id ?? "", { approve: true });
    await row.getByText("idle").waitFor(UI);
    await expect(row.getByRole("cell").nth(1).textContent()).resolves.toBe("review");
  });

  it("JWT: a sign-in link hands the token over once; an expired token returns to sign-in", async () => {
    const hub = await hubWith({ jwtSecret: SECRET });
    const page = await person(`${hub.url}/`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor(UI);

    await page.goto(signInLink(hub.url, await token("u_rita", "Rita", ["reviewer"], "3s")));
    await page.getByLabel(/Signed in as Rita/).waitFor(UI);
    expect(page.url()).not.toContain("token=");
    expect(await page.evaluate(() => sessionStorage.getItem("switchboard.token"))).toMatch(/^ey/);
    await page.getByText(/token expires in \d s/).waitFor(UI);

    // At expiry the page goes back to sign-in and says why.
    await page.getByRole("alert").filter({ hasText: /token expired/i }).waitFor({ timeout: 10_000 });
    await page.getByRole("heading", { name: "Sign in" }).waitFor(UI);
    expect(await page.evaluate(() => sessionStorage.getItem("switchboard.token"))).toBeNull();

    // A typed token signs in too.
    await page.getByLabel("Token").fill(await token("u_sam", "Sam", ["observer"]));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByLabel(/Signed in as Sam/).waitFor(UI);
  });
});
