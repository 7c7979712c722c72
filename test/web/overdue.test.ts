/**
 * An item whose expiry policy is `keep`, in Chromium against a real hub: its
 * countdown runs out into "overdue" (not "expired"), it stays in the inbox
 * and on its page, still answerable, and the answer resumes the run.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium } from "../support/browser.ts";
import { UI, WebHarness, firstQuestion, token } from "./harness.ts";

const h = new WebHarness();
beforeAll(() => h.open(), 60_000);
afterAll(() => h.close());

const rowOf = (page: Page, name: string | RegExp) => page.getByRole("row").filter({ has: page.getByRole("link", { name }) });

describe.skipIf(!hasChromium())("an overdue item in Chromium", { timeout: 90_000 }, () => {
  it("past its deadline a kept item says overdue in the inbox and on its page, and is answered", async () => {
    const hub = await h.hub({ review: { onExpire: { action: "keep" } } });
    const olive = h.sdk(hub, await token("u_olive", "Olive", ["operator", "observer"]));
    const rita = h.sdk(hub, await token("u_rita", "Rita", ["reviewer", "observer"]));
    const ada = await h.person(hub, "u_ada", "Ada", ["reviewer", "observer"]);
    const thread = olive.thread("budget-keep");
    await thread.run("budget", { expires: "1s", title: "Approve the late budget?" });
    const question = await firstQuestion(rita, "budget-keep");

    const row = rowOf(ada, "Approve the late budget?");
    await row.waitFor(UI);
    await row.getByText("overdue").waitFor(UI);
    await row.getByRole("link", { name: "Approve the late budget?" }).click();
    await ada.getByText("overdue: kept open past its deadline").waitFor(UI);
    expect(await ada.getByText("This item expired.").count()).toBe(0);

    // Still answerable: the hub did not expire it.
    const answer = await rita.thread("budget-keep").respond(question.interrupt_id, { approve: true, comment: "Late, but approved." });
    expect(answer.run_id).toEqual(expect.any(String));
    await ada.getByText(/Answered by Rita/).waitFor(UI);
  });
});
