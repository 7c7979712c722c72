/**
 * The inbox and the item view in Chromium against a real hub: a routed
 * question (Markdown draft, countdown, a form from its response schema
 * validated before sending, claim / release, a refusal that keeps what was
 * typed, non-candidates read-only with the reason, every open inbox saying
 * who answered and when); expiry; filters, sorting and the keyboard; Agent
 * Inbox's HumanInterrupt (Accept / Edit / Respond / Ignore) and the JSON
 * editor that refuses invalid JSON; the phone width.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { hasChromium } from "../support/browser.ts";
import { BUDGET_DRAFT } from "./assistants.ts";
import { UI, WebHarness, firstQuestion, token } from "./harness.ts";

const h = new WebHarness();
beforeAll(() => h.open(), 60_000);
afterAll(() => h.close());

const rowOf = (page: Page, name: string | RegExp) => page.getByRole("row").filter({ has: page.getByRole("link", { name }) });
/** Presses a key with the focus on the page's heading (shortcuts are off while typing). */
async function press(page: Page, key: string): Promise<void> {
  await page.locator("h1").first().click();
  await page.keyboard.press(key);
}

describe.skipIf(!hasChromium())("the inbox and the item in Chromium", { timeout: 90_000 }, () => {
  it("a routed question: Markdown, countdown, schema form, claim / release, a refusal keeps the text, non-candidates read only, every inbox says who answered", async () => {
    const hub = await h.hub();
    const olive = h.sdk(hub, await token("u_olive", "Olive", ["operator", "observer"]));
    const rita = h.sdk(hub, await token("u_rita", "Rita", ["reviewer", "observer"]));
    const ada = await h.person(hub, "u_ada", "Ada", ["reviewer", "observer"]);
    const ritaPage = await h.person(hub, "u_rita", "Rita", ["reviewer", "observer"]);
    const bob = await h.person(hub, "u_bob", "Bob", ["reviewer", "observer"]);

    await olive.thread("budget-1").run("budget", { expires: "3m" });
    const question = await firstQuestion(rita, "budget-1");

    // Both candidates' inboxes list it with a live countdown; Bob is not a candidate.
    const row = rowOf(ada, "Approve the Q3 budget?");
    await row.waitFor(UI);
    const expiry = row.getByRole("cell").nth(2);
    const before = await expiry.textContent();
    expect(before).toMatch(/^in [23] min( \d+ s)?$/);
    await expect.poll(() => expiry.textContent(), UI).not.toBe(before);
    await expect(row.textContent()).resolves.toContain("finance");
    await rowOf(ritaPage, "Approve the Q3 budget?").waitFor(UI);
    await bob.getByText("Nothing waits for you.").waitFor(UI);

    // The item: the draft as Markdown, the deadline, a form from the response schema.
    await row.getByRole("link", { name: "Approve the Q3 budget?" }).click();
    await ada.getByRole("heading", { name: "Q3 budget", level: 2 }).waitFor(UI);
    expect(await ada.locator(".markdown strong").first().textContent()).toBe("Cloud");
    expect(await ada.locator(".markdown em").first().textContent()).toBe("streaming");
    expect(BUDGET_DRAFT).toContain("*streaming*");
    await ada.getByText(/^expires in [23] min( \d+ s)?$/).waitFor(UI);
    // Rita's inbox sees Ada looking at it.
    await rowOf(ritaPage, "Approve the Q3 budget?").getByRole("img", { name: "Also looking: Ada" }).waitFor(UI);

    // Validated before sending: nothing reaches the hub until the comment is valid.
    const comment = ada.getByLabel("Comment");
    await ada.getByRole("button", { name: "Approve" }).click();
    await ada.getByRole("alert").filter({ hasText: "Comment is required." }).waitFor(UI);
    await comment.fill("ok");
    await ada.getByRole("button", { name: "Approve" }).click();
    await ada.getByRole("alert").filter({ hasText: "At least 5 characters." }).waitFor(UI);
    expect((await olive.reviewItem(question.interrupt_id)).status).toBe("open");
    await comment.fill("Looks right, ship it");

    // Rita claims it elsewhere: Ada's page says so; Ada's answer is refused and her text stays.
    await rita.thread("budget-1").claim(question.interrupt_id);
    await ada.getByText("claimed by Rita").waitFor(UI);
    expect(await ada.getByRole("button", { name: "Claim" }).isDisabled()).toBe(true);
    await ada.getByRole("button", { name: "Approve" }).click();
    await ada.getByRole("alert").filter({ hasText: /^Rita has claimed this item until / }).waitFor(UI);
    expect(await comment.inputValue()).toBe("Looks right, ship it");
    await rita.thread("budget-1").release(question.interrupt_id);
    await ada.getByRole("button", { name: "Claim" }).and(ada.locator(":enabled")).waitFor(UI);

    // Claim and release by button and by key; every inbox shows the claim.
    await ada.getByRole("button", { name: "Claim" }).click();
    await ada.getByText("claimed by you").waitFor(UI);
    await rowOf(ritaPage, "Approve the Q3 budget?").getByText("by Ada").waitFor(UI);
    await press(ada, "c");
    await ada.getByRole("button", { name: "Claim" }).waitFor(UI);
    await vi.waitFor(() => expect(rita.thread("budget-1").interrupts[0]?.status).toBe("open"), UI);

    // Bob reaches the item from the run view: read only, and why.
    await bob.goto(`${hub.url}/#/items/budget-1/${question.interrupt_id}`);
    await bob.getByText("Read only. This item is routed to u_ada, u_rita; you are not one of its candidates.").waitFor(UI);
    expect(await bob.getByRole("button", { name: /Approve|Reject|Claim/ }).count()).toBe(0);

    // `a` approves with what was typed.
    await press(ada, "a");
    await ada.getByRole("status").filter({ hasText: "Answer sent" }).waitFor(UI);
    await vi.waitFor(async () => expect(await olive.thread("budget-1").getState()).toMatchObject({ decision: { approve: true, comment: "Looks right, ship it" } }), UI);

    // Every open page says who answered and when.
    await rowOf(ritaPage, "Approve the Q3 budget?").getByText(/^answered by Ada · \d+ s ago$/).waitFor(UI);
    await bob.getByText(/^answered by Ada · \d+ s ago$/).waitFor(UI);
    await ada.keyboard.press("Escape");
    await rowOf(ada, "Approve the Q3 budget?").getByText(/^answered by Ada · \d+ s ago$/).waitFor(UI);
    await ada.getByText("Nothing waits for you.").waitFor(UI);
  });

  it("an item that expires: its countdown runs out and every open page says it expired", async () => {
    const hub = await h.hub();
    const olive = h.sdk(hub, await token("u_olive", "Olive", ["operator", "observer"]));
    const ada = await h.person(hub, "u_ada", "Ada", ["reviewer", "observer"]);
    const rita = await h.person(hub, "u_rita", "Rita", ["reviewer", "observer"]);
    // Short, to wait little, and long enough to see the countdown and open the item before it runs out.
    await olive.thread("budget-exp").run("budget", { expires: "3s", title: "Approve quickly?" });
    await rowOf(rita, "Approve quickly?").getByText(/^in \d s$/).waitFor(UI);
    await rowOf(ada, "Approve quickly?").getByRole("link", { name: "Approve quickly?" }).click();
    await ada.getByText(/^expires in \d s$/).waitFor(UI);
    await rowOf(rita, "Approve quickly?").getByText(/^expired · \d+ s ago$/).waitFor(UI);
    await ada.getByText("This item expired.").waitFor(UI);
    expect(await ada.getByRole("button", { name: "Approve" }).isDisabled()).toBe(true);
  });

  it("a question whose thread is deleted: every open inbox says it was withdrawn and why, the item says it is void", async () => {
    const hub = await h.hub();
    const oliveToken = await token("u_olive", "Olive", ["operator", "observer"]);
    const olive = h.sdk(hub, oliveToken);
    const ada = await h.person(hub, "u_ada", "Ada", ["reviewer", "observer"]);
    const rita = await h.person(hub, "u_rita", "Rita", ["reviewer", "observer"]);
    await olive.thread("budget-cx").run("budget", { expires: "5m", title: "Approve the void budget?" });
    await rowOf(rita, "Approve the void budget?").waitFor(UI);
    await rowOf(ada, "Approve the void budget?").getByRole("link", { name: "Approve the void budget?" }).click();
    await ada.getByRole("button", { name: "Approve" }).waitFor(UI);
    const deleted = await fetch(`${hub.url}/threads/budget-cx`, { method: "DELETE", headers: { authorization: `Bearer ${oliveToken}` } });
    expect(deleted.status).toBe(204);
    await rowOf(rita, "Approve the void budget?").getByText(/^withdrawn: the thread was deleted · \d+ s ago$/).waitFor(UI);
    await rowOf(ada, "Approve the void budget?").or(ada.getByText(/withdrawn|void|cancelled/i)).first().waitFor(UI);
    expect(await ada.getByRole("button", { name: "Approve", disabled: false }).count()).toBe(0);
  });

  it("filters, sorting and the keyboard: j / k / Enter, n for the next item, Esc back", async () => {
    const hub = await h.hub();
    const olive = h.sdk(hub, await token("u_olive", "Olive", ["operator", "observer"]));
    await olive.thread("travel").run("budget", { expires: "2m", title: "Approve the travel budget?" });
    await olive.thread("cloud").run("budget", { expires: "30m", title: "Approve the cloud budget?" });
    await olive.thread("note").run("review", { topic: "the launch" });
    const ada = await h.person(hub, "u_ada", "Ada", ["reviewer", "observer"]);
    const links = ada.getByRole("table", { name: "Review items" }).getByRole("link", { name: /budget|Dear team/ });
    await expect.poll(() => links.count(), UI).toBe(3);
    const order = async () => (await links.allTextContents()).map((t) => (t.startsWith("Dear team") ? "note" : (/travel|cloud/.exec(t)?.[0] ?? t)));

    await ada.getByLabel("Sort").selectOption("expiry");
    expect(await order()).toEqual(["travel", "cloud", "note"]);
    await ada.getByLabel("Sort").selectOption("newest");
    expect(await order()).toEqual(["note", "cloud", "travel"]);
    await ada.getByLabel("Queue").selectOption("finance");
    expect(await order()).toEqual(["cloud", "travel"]);
    await ada.getByLabel("Queue").selectOption("");
    await ada.getByLabel("Assistant").selectOption("review");
    expect(await order()).toEqual(["note"]);
    await ada.getByLabel("Assistant").selectOption("");
    await ada.getByLabel("Sort").selectOption("oldest");
    expect(await order()).toEqual(["travel", "cloud", "note"]);

    await press(ada, "j");
    await press(ada, "j");
    await press(ada, "k");
    expect(await ada.evaluate(() => document.activeElement?.textContent)).toBe("Approve the cloud budget?");
    await ada.keyboard.press("Enter");
    await ada.getByRole("heading", { name: "Approve the cloud budget?", level: 1 }).waitFor(UI);
    await press(ada, "n");
    await ada.getByRole("heading", { name: "Approve the travel budget?", level: 1 }).waitFor(UI);
    await press(ada, "Escape");
    await ada.getByRole("heading", { name: "Inbox", level: 1 }).waitFor(UI);
  });

  it("Agent Inbox's HumanInterrupt: Accept, Edit (args editable), Respond, Ignore; the JSON editor refuses invalid JSON", async () => {
    const hub = await h.hub();
    const olive = h.sdk(hub, await token("u_olive", "Olive", ["operator", "observer"]));
    const modes = ["accept", "edit", "respond", "ignore"] as const;
    for (const mode of modes) await olive.thread(`tri-${mode}`).run("triage", { to: `${mode}@example.com` });
    await olive.thread("fan").run("parallel-review", {});
    const ada = await h.person(hub, "u_ada", "Ada", ["reviewer", "observer"]);
    const decision = (thread: string) => olive.thread(thread).getState().then((s) => s["decision"]);
    const open = async (name: RegExp) => {
      await ada.goto(`${hub.url}/#/`);
      await ada.getByRole("link", { name }).first().click();
    };

    await open(/^send_email\(to: "accept@example.com"/);
    // The request in words: its description, the action, the arguments in a collapsible tree.
    await ada.getByText("Send the launch email to the team?", { exact: true }).waitFor(UI);
    const args = ada.getByRole("group", { name: "Arguments", exact: true });
    await args.getByText('"accept@example.com"').waitFor(UI);
    await args.locator("summary").first().click();
    expect(await args.getByText('"accept@example.com"').isVisible()).toBe(false);
    await args.locator("summary").first().click();
    expect(await args.getByText('"accept@example.com"').isVisible()).toBe(true);
    for (const name of ["Accept", "Edit", "Respond", "Ignore"]) await ada.getByRole("button", { name, exact: true }).waitFor(UI);
    await press(ada, "a");
    await ada.getByRole("status").filter({ hasText: "Answer sent" }).waitFor(UI);
    await vi.waitFor(async () => expect(await decision("tri-accept")).toEqual([{ type: "accept", args: null }]), UI);

    await open(/^send_email\(to: "edit@example.com"/);
    await ada.getByRole("button", { name: "Edit", exact: true }).click();
    await ada.getByLabel("subject").fill("Launch day");
    await ada.getByLabel("recipients").fill("four");
    await ada.getByRole("button", { name: "Send edited action" }).click();
    await ada.getByRole("alert").filter({ hasText: "recipients is not valid JSON" }).waitFor(UI);
    expect(await ada.getByLabel("subject").inputValue()).toBe("Launch day");
    await ada.getByLabel("recipients").fill("4");
    await ada.getByRole("button", { name: "Send edited action" }).click();
    await ada.getByRole("status").filter({ hasText: "Answer sent" }).waitFor(UI);
    await vi.waitFor(
      async () => expect(await decision("tri-edit")).toEqual([{ type: "edit", args: { action: "send_email", args: { to: "edit@example.com", subject: "Launch day", recipients: 4 } } }]),
      UI,
    );

    await open(/^send_email\(to: "respond@example.com"/);
    await ada.getByRole("button", { name: "Respond", exact: true }).click();
    await ada.getByLabel("Your response").fill("Wait until Monday, please.");
    await ada.getByRole("button", { name: "Send response" }).click();
    await ada.getByRole("status").filter({ hasText: "Answer sent" }).waitFor(UI);
    await vi.waitFor(async () => expect(await decision("tri-respond")).toEqual([{ type: "response", args: "Wait until Monday, please." }]), UI);

    await open(/^send_email\(to: "ignore@example.com"/);
    await ada.getByRole("button", { name: "Ignore", exact: true }).click();
    await ada.getByRole("status").filter({ hasText: "Answer sent" }).waitFor(UI);
    await vi.waitFor(async () => expect(await decision("tri-ignore")).toEqual([{ type: "ignore", args: null }]), UI);

    // Anything else: a JSON editor that refuses what does not parse.
    await open(/^Review by r1$/);
    const editor = ada.getByLabel("Or answer with any JSON value");
    await editor.fill('{"approve": tru');
    await editor.blur();
    await ada.getByRole("alert").filter({ hasText: /^Not valid JSON/ }).waitFor(UI);
    expect(await ada.getByRole("button", { name: "Send JSON answer" }).isDisabled()).toBe(true);
    await editor.fill('{"approve": true, "note": "fine"}');
    await ada.getByRole("button", { name: "Send JSON answer" }).click();
    await ada.getByRole("status").filter({ hasText: "Answer sent" }).waitFor(UI);
    // (The run waits for r2 and r3; the item's record holds the answer.)
    const interruptId = decodeURIComponent(ada.url().split("/").at(-1) ?? "");
    expect((await olive.reviewItem(interruptId)).answer?.response).toEqual({ approve: true, note: "fine" });
  });

  it("works on a phone-width screen: the inbox and an item fit, the answer controls are reachable", async () => {
    const hub = await h.hub();
    const olive = h.sdk(hub, await token("u_olive", "Olive", ["operator", "observer"]));
    await olive.thread("phone-1").run("budget", {});
    const ada = await h.person(hub, "u_ada", "Ada", ["reviewer", "observer"], { phone: true });
    const fits = () => ada.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    await ada.getByRole("link", { name: "Approve the Q3 budget?" }).click();
    await ada.getByLabel("Comment").fill("Fine on a phone too");
    expect(await fits()).toBe(true);
    await ada.getByRole("button", { name: "Approve" }).click();
    await ada.getByRole("status").filter({ hasText: "Answer sent" }).waitFor(UI);
    await ada.getByRole("link", { name: "← Inbox" }).click();
    await ada.getByText(/^answered by Ada · \d+ s ago$/).waitFor(UI);
    expect(await fits()).toBe(true);
  });
});
