/**
 * An answer link in Chromium: a person with no token opens the link an admin
 * minted for them, sees the item (the draft, the form its schema declares),
 * answers once without signing in; the same link opened again says it was
 * already used, and a tampered one says it is not valid.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, openPage } from "../support/browser.ts";
import { UI, WebHarness, firstQuestion, token } from "./harness.ts";

const h = new WebHarness();
beforeAll(() => h.open(), 60_000);
afterAll(() => h.close());

describe.skipIf(!hasChromium())("an answer link in Chromium", { timeout: 90_000 }, () => {
  it("opens the item without sign-in, answers once, then says the link was used", async () => {
    const hub = await h.hub();
    const olive = h.sdk(hub, await token("u_olive", "Olive", ["operator", "observer"]));
    const watcher = h.sdk(hub, await token("u_rita", "Rita", ["reviewer", "observer"]));
    await olive.thread("link-1").run("budget", { expires: "10m" });
    const question = await firstQuestion(watcher, "link-1");

    const minted = await fetch(`${hub.url}/reviews/${question.interrupt_id}/links`, {
      method: "POST",
      headers: { authorization: `Bearer ${await token("u_admin", "Admin", ["admin"])}`, "content-type": "application/json" },
      body: JSON.stringify({ sub: "u_rita", name: "Rita" }),
    });
    expect(minted.status).toBe(200);
    const { path } = (await minted.json()) as { path: string };

    const { page, errors, close } = await openPage(h.browser, `${hub.url}${path}`);
    h.defer(async () => {
      expect(errors).toEqual([]);
      await close();
    });
    await page.getByRole("heading", { name: "A question for Rita" }).waitFor(UI);
    await page.getByRole("heading", { name: "Q3 budget", level: 2 }).waitFor(UI);
    await page.getByLabel("Comment").fill("Approved from the mail link");
    await page.screenshot({ path: "/tmp/switchboard-link-page.png", fullPage: true });
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("status").filter({ hasText: "Answered by Rita. Thank you — this link is now used." }).waitFor(UI);
    await page.screenshot({ path: "/tmp/switchboard-link-answered.png", fullPage: true });

    // Rita's answer won through the item's routing, and the run resumed and ended.
    const auth = { authorization: `Bearer ${await token("u_olive", "Olive", ["operator", "observer"])}` };
    const item = (await (await fetch(`${hub.url}/reviews/${question.interrupt_id}`, { headers: auth })).json()) as { answer: { answered_by: { sub: string }; response: unknown } };
    expect(item.answer).toMatchObject({ answered_by: { sub: "u_rita" }, response: { approve: true, comment: "Approved from the mail link" } });
    await expect.poll(async () => ((await (await fetch(`${hub.url}/threads/link-1`, { headers: auth })).json()) as { status: string }).status, UI).toBe("idle");

    const again = await openPage(h.browser, `${hub.url}${path}`);
    h.defer(() => again.close());
    await again.page.getByRole("alert").filter({ hasText: /^This link was already used/ }).waitFor(UI);
    await again.page.screenshot({ path: "/tmp/switchboard-link-used.png" });

    const tampered = await openPage(h.browser, `${hub.url}${path.slice(0, -3)}abc`);
    h.defer(() => tampered.close());
    await tampered.page.getByRole("alert").filter({ hasText: "This link is not valid" }).waitFor(UI);
  });

  it("a link to one action of a multi-action request answers with the decisions its config allows, not a generic approve", async () => {
    const hub = await h.hub();
    const olive = h.sdk(hub, await token("u_olive", "Olive", ["operator", "observer"]));
    const admin = { authorization: `Bearer ${await token("u_admin", "Admin", ["admin", "reviewer", "observer"])}`, "content-type": "application/json" };
    await olive.thread("link-act").run("expense-approval", {});
    let emailId = "";
    await expect
      .poll(async () => {
        const { items } = (await (await fetch(`${hub.url}/queues/support/items`, { headers: admin })).json()) as { items: Array<{ interrupt_id: string; thread_id: string }> };
        emailId = items.find((i) => i.thread_id === "link-act")?.interrupt_id ?? "";
        return emailId;
      }, UI)
      .toMatch(/\.1$/);
    const minted = await fetch(`${hub.url}/reviews/${emailId}/links`, { method: "POST", headers: admin, body: JSON.stringify({ sub: "sid", name: "Sid" }) });
    expect(minted.status).toBe(200);
    const { path } = (await minted.json()) as { path: string };

    const { page, errors, close } = await openPage(h.browser, `${hub.url}${path}`);
    h.defer(async () => {
      expect(errors).toEqual([]);
      await close();
    });
    await page.getByRole("heading", { name: "A question for Sid" }).waitFor(UI);
    // The email's config allows approve, edit and reject: those buttons, no Agent Inbox Respond.
    for (const name of ["Approve", "Edit", "Reject"]) await page.getByRole("button", { name, exact: true }).waitFor(UI);
    expect(await page.getByRole("button", { name: "Respond", exact: true }).count()).toBe(0);
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "this link is now used" }).waitFor(UI);
    const item = (await (await fetch(`${hub.url}/reviews/${emailId}`, { headers: admin })).json()) as { answer: { answered_by: { sub: string }; response: unknown } };
    expect(item.answer).toMatchObject({ answered_by: { sub: "sid" }, response: { type: "approve" } });
  });
});
