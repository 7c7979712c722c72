/**
 * The run view and the operator's controls in Chromium against a real hub:
 * a subgraph's timeline nested under its parent with durations, a message
 * streamed inside it, a private channel that never reaches the page; an
 * operator starts a run on a new thread with JSON input and cancels it; an
 * observer gets no operator controls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium } from "../support/browser.ts";
import { NESTED_TEXT, SECRET_VALUE } from "./assistants.ts";
import { UI, WebHarness, token } from "./harness.ts";

const h = new WebHarness();
beforeAll(() => h.open(), 60_000);
afterAll(() => h.close());

const DURATION = /^\d+ ms$|^\d+\.\d+ s$/;

describe.skipIf(!hasChromium())("the run view in Chromium", { timeout: 90_000 }, () => {
  it("a subgraph: its nodes nest under the parent's node with durations, its message streams, the private channel never shows", async () => {
    const hub = await h.hub({ tokenDelayMs: 20 });
    const oliveToken = await token("u_olive", "Olive", ["operator", "observer"]);
    const olive = h.sdk(hub, oliveToken);
    // A reviewer creates no thread by watching: the operator made it first.
    expect((await fetch(`${hub.url}/threads`, { method: "POST", headers: { authorization: `Bearer ${oliveToken}`, "content-type": "application/json" }, body: JSON.stringify({ thread_id: "nest-1" }) })).ok).toBe(true);
    const ada = await h.person(hub, "u_ada", "Ada", ["reviewer", "observer"], { route: "#/threads/nest-1" });
    await ada.getByRole("heading", { name: "Timeline" }).waitFor(UI);
    await olive.thread("nest-1").run("nested", {});

    const message = ada.getByRole("article", { name: "Message from search" });
    await message.getByText("in research").waitFor(UI);
    await ada.waitForFunction((text) => document.querySelector('[data-testid="message-text"]')?.textContent === text, NESTED_TEXT, UI);

    // Timeline: root nodes, then the subgraph's own block under its node, each with a duration.
    await ada.getByRole("link", { name: "Open to answer" }).waitFor(UI);
    const root = ada.locator(".tl-ns").first();
    const rootNodes = root.locator(":scope > .tl-nodes > .tl-node");
    await expect.poll(() => rootNodes.locator(".mono").allTextContents(), UI).toEqual(["prepare", "research"]);
    const child = root.locator(":scope > .tl-child > .tl-ns");
    await expect(child.locator(".tl-ns-head .mono").textContent()).resolves.toBe("research › research");
    expect(await child.locator(".tl-node .mono").allTextContents()).toEqual(["search", "ask"]);
    expect(await child.locator(".tl-node .small").allTextContents()).toEqual(["completed", expect.stringMatching(DURATION), "interrupted", expect.stringMatching(DURATION)]);
    expect(await rootNodes.locator(".small").allTextContents()).toEqual(["completed", expect.stringMatching(DURATION), "interrupted", expect.stringMatching(DURATION)]);

    // Answer from the run view's link; the run finishes, and the private channel did its work unseen.
    await ada.getByRole("link", { name: "Open to answer" }).click();
    await ada.getByRole("button", { name: "Approve" }).click();
    await ada.getByRole("status").filter({ hasText: "Answer sent" }).waitFor(UI);
    await ada.getByRole("link", { name: "Watch the run" }).click();
    await ada.locator('[aria-label="Run status"]').getByText("completed").waitFor(UI);
    const state = ada.getByRole("group", { name: "Thread state" });
    await state.getByText("done", { exact: true }).waitFor(UI);
    expect(await state.textContent()).toContain("done: true");
    const everything = await ada.evaluate(() => document.documentElement.outerHTML);
    expect(everything).not.toContain(SECRET_VALUE);
    expect(everything).not.toContain("api_key");
  });

  it("an operator starts a run on a new thread with JSON input, watches it and cancels it; an observer has no such controls", async () => {
    const hub = await h.hub({ tokenDelayMs: 150 });
    const olive = await h.person(hub, "u_olive", "Olive", ["operator", "observer"], { route: "#/threads" });
    const obi = await h.person(hub, "u_obi", "Obi", ["observer"], { route: "#/threads" });

    const form = olive.getByRole("region", { name: "Start a run" });
    await form.getByLabel("Assistant").selectOption("review");
    await form.getByLabel("Input (JSON)").fill('{ "topic": ');
    await form.getByRole("button", { name: "Start run on a new thread" }).click();
    await form.getByRole("alert").filter({ hasText: /^Input is not valid JSON/ }).waitFor(UI);
    await form.getByLabel("Input (JSON)").fill('{ "topic": "the operators" }');
    await form.getByRole("button", { name: "Start run on a new thread" }).click();

    // The new thread's run view opens and streams; the observer's list shows it running.
    await olive.locator('[aria-label="Run status"]').getByText("running").waitFor(UI);
    const threadId = decodeURIComponent(new URL(olive.url()).hash.replace("#/threads/", ""));
    await obi.getByRole("row").filter({ has: obi.getByRole("link", { name: `Thread ${threadId}` }) }).getByText("running").waitFor(UI);
    await olive.getByTestId("message-text").waitFor(UI);

    await olive.getByRole("button", { name: "Cancel run" }).click();
    await olive.locator('[aria-label="Run status"]').getByText("cancelled").waitFor(UI);
    await olive.getByRole("button", { name: "Continue from the last checkpoint" }).waitFor(UI);
    await obi.getByRole("row").filter({ has: obi.getByRole("link", { name: `Thread ${threadId}` }) }).getByText(/cancelled|idle/).waitFor(UI);

    // The observer sees the same run, without operator controls.
    expect(await obi.getByRole("region", { name: "Start a run" }).count()).toBe(0);
    await obi.goto(`${hub.url}/#/threads/${encodeURIComponent(threadId)}`);
    await obi.locator('[aria-label="Run status"]').getByText("cancelled").waitFor(UI);
    expect(await obi.getByRole("region", { name: "Operator controls" }).count()).toBe(0);
    expect(await obi.getByRole("button", { name: /Cancel run|Start run|Continue/ }).count()).toBe(0);
  });
});
