/**
 * Per-action decisions in Chromium against a real hub: the `expense-approval`
 * demo proposes a refund and an email in ONE interrupt; the refund's finance
 * reviewer and the email's support reviewer each see their own action in
 * their inbox (grouped as one request, "action i of 2"), answer it with only
 * the decisions its config allows (the email edited, the refund rejected),
 * see the other action's state, and the run resumes once with both.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { hasChromium, openPage } from "../support/browser.ts";
import { UI, WebHarness, firstQuestion, token } from "./harness.ts";

const h = new WebHarness();
beforeAll(() => h.open(), 60_000);
afterAll(() => h.close());

const rowOf = (page: Page, name: string | RegExp) => page.getByRole("row").filter({ has: page.getByRole("link", { name }) });

describe.skipIf(!hasChromium())("per-action items in Chromium", { timeout: 90_000 }, () => {
  it("two actions of one interrupt in two inboxes: each answered with what its config allows; one resume with both decisions", async () => {
    const hub = await h.hub();
    const olive = h.sdk(hub, await token("u_olive", "Olive", ["operator", "observer"]));
    const rita = await h.person(hub, "rita", "Rita", ["reviewer", "observer"]);
    const sid = await h.person(hub, "sid", "Sid", ["reviewer", "observer"]);
    await olive.thread("exp-web").run("expense-approval", {});

    // Each inbox lists its own action, tagged as one of two actions of one request.
    const refundRow = rowOf(rita, /^issue_refund\(order: "A-1027", amount: 120/);
    await refundRow.waitFor(UI);
    expect(await refundRow.textContent()).toContain("action 1 of 2");
    expect(await refundRow.textContent()).toContain("One request from the agent, 2 actions");
    expect(await refundRow.textContent()).toContain("finance");
    const emailRow = rowOf(sid, /^send_email\(to: "ada@example.com"/);
    await emailRow.waitFor(UI);
    expect(await emailRow.textContent()).toContain("action 2 of 2");
    // Sid is no finance candidate: the refund never reaches his inbox.
    expect(await rowOf(sid, /^issue_refund/).count()).toBe(0);

    // The email: Approve / Edit / Reject as its config allows, no Respond; the edit is sent as edited_action.
    await emailRow.getByRole("link", { name: /^send_email/ }).click();
    await sid.getByRole("heading", { name: "This request's actions" }).waitFor(UI);
    for (const name of ["Approve", "Edit", "Reject"]) await sid.getByRole("button", { name, exact: true }).waitFor(UI);
    expect(await sid.getByRole("button", { name: "Respond", exact: true }).count()).toBe(0);
    await sid.getByRole("button", { name: "Edit", exact: true }).click();
    await sid.getByLabel("subject").fill("Your refund is on its way");
    await sid.getByRole("button", { name: "Send edited action" }).click();
    await sid.getByRole("status").filter({ hasText: "The run resumes once its other questions are answered" }).waitFor(UI);

    // The refund: only Approve and Reject; Rita sees the email already decided.
    await refundRow.getByRole("link", { name: /^issue_refund/ }).click();
    await rita.getByRole("button", { name: "Approve", exact: true }).waitFor(UI);
    expect(await rita.getByRole("button", { name: "Edit", exact: true }).count()).toBe(0);
    const siblings = rita.getByRole("region", { name: "This request's actions" });
    await siblings.getByText(/edited by Sid/).waitFor(UI);
    await rita.getByRole("button", { name: "Reject", exact: true }).click();
    await rita.getByLabel("Why (the agent reads it; optional)").fill("Receipt missing");
    await rita.getByRole("button", { name: "Send rejection" }).click();
    await rita.getByRole("status").filter({ hasText: "The run resumed." }).waitFor(UI);

    // One resume: the edited email ran, the rejected refund was answered with the reason.
    const messages = async () => ((await olive.thread("exp-web").getState())["messages"] ?? []) as Array<{ type: string; name?: string; status?: string; content: unknown }>;
    await vi.waitFor(async () => expect((await messages()).at(-1)?.type).toBe("ai"), UI);
    expect((await messages()).filter((m) => m.type === "tool").map((m) => [m.name, m.status, m.content])).toEqual([
      ["issue_refund", "error", "rejected by the reviewer: Receipt missing"],
      ["send_email", "success", 'Email "Your refund is on its way" sent to ada@example.com'],
    ]);
    await siblings.getByText(/rejected by Rita/).waitFor(UI);
  });

  it("the refund's quorum: progress live on every finance page, a reassignment leaves one inbox and appears in another, two approvals resume", async () => {
    const hub = await h.hub();
    const olive = h.sdk(hub, await token("u_olive", "Olive", ["operator", "observer"]));
    const root = h.sdk(hub, await token("root", "Root", ["admin", "observer"]));
    const sam = await h.person(hub, "sam", "Sam", ["reviewer", "observer"]);
    const tom = await h.person(hub, "tom", "Tom", ["reviewer", "observer"]);
    const vic = await h.person(hub, "vic", "Vic", ["reviewer", "observer"]);
    const sidSdk = h.sdk(hub, await token("sid", "Sid", ["reviewer", "observer"]));
    await olive.thread("exp-quorum").run("expense-approval", {});
    const refundRow = (page: Page) => rowOf(page, /^issue_refund\(order: "A-1027"/);
    await refundRow(tom).waitFor(UI);
    const id = await refundRow(tom).getAttribute("data-interrupt");
    expect(id).toMatch(/\.0$/);
    await sidSdk.thread("exp-quorum").respond(id!.replace(/\.0$/, ".1"), { type: "approve" });
    // vic is no candidate yet.
    expect(await refundRow(vic).count()).toBe(0);

    // Sam approves; Tom, looking at the refund, sees the progress appear.
    await refundRow(tom).getByRole("link", { name: /^issue_refund/ }).click();
    await tom.getByRole("button", { name: "Approve", exact: true }).waitFor(UI);
    await refundRow(sam).getByRole("link", { name: /^issue_refund/ }).click();
    await sam.getByRole("button", { name: "Approve", exact: true }).click();
    await sam.getByText("1 of 2 approved: Sam", { exact: true }).waitFor(UI);
    await tom.getByText("1 of 2 approved: Sam", { exact: true }).waitFor(UI);

    await tom.getByLabel("1 open", { exact: true }).waitFor(UI);
    // An admin gives the refund to sam and vic: it leaves Tom's inbox (greyed, saying to whom) and appears in Vic's.
    await root.thread("exp-quorum").reassign(id!, { users: ["sam", "vic"], reason: "Tom is away" });
    await tom.getByRole("link", { name: "← Inbox" }).click();
    await refundRow(tom).getByText("reassigned to sam, vic (finance)").waitFor(UI);
    await tom.getByLabel("0 open", { exact: true }).waitFor(UI); // the nav's count no longer has it
    await refundRow(vic).waitFor(UI);
    await refundRow(vic).getByRole("link", { name: /^issue_refund/ }).click();
    await vic.getByText("1 of 2 approved: Sam", { exact: true }).waitFor(UI);
    await vic.getByRole("button", { name: "Approve", exact: true }).click();
    await vic.getByRole("status").filter({ hasText: "The run resumed." }).waitFor(UI);

    const messages = async () => ((await olive.thread("exp-quorum").getState())["messages"] ?? []) as Array<{ type: string; name?: string; status?: string; content: unknown }>;
    await vi.waitFor(async () => expect((await messages()).at(-1)?.type).toBe("ai"), UI);
    expect((await messages()).filter((m) => m.type === "tool").map((m) => [m.name, m.status])).toEqual([
      ["issue_refund", "success"],
      ["send_email", "success"],
    ]);
  });

  it("the run view lists a multi-action request's actions, each opening its own item (the request has none of its own)", async () => {
    const hub = await h.hub();
    const olive = h.sdk(hub, await token("u_olive", "Olive", ["operator", "observer"]));
    await olive.thread("exp-run").run("expense-approval", {});
    await firstQuestion(olive, "exp-run");
    // Opened after the question was asked: the page knows the request from the thread's snapshot only.
    const rita = await h.person(hub, "rita", "Rita", ["reviewer", "observer"], { route: "#/threads/exp-run" });
    await rita.getByText("each of its 2 actions is decided as an item of its own").waitFor(UI);
    expect(await rita.getByRole("link", { name: "Open to answer" }).count()).toBe(0);
    await rita.getByRole("link", { name: "2. send_email" }).click();
    await rita.getByRole("heading", { name: "This request's actions" }).waitFor(UI);
    for (const name of ["Approve", "Edit", "Reject"]) await rita.getByRole("button", { name, exact: true }).waitFor(UI);
  });

  it("after a hub restart the run view of a finished thread shows its conversation and questions from the thread's state and review items", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-web-restart-"));
    h.defer(() => rmSync(dir, { recursive: true, force: true }));
    const first = await h.hub({ dataDir: dir });
    const olive = h.sdk(first, await token("u_olive", "Olive", ["operator", "observer"]));
    await olive.thread("exp-restart").run("expense-approval", {});
    const { interrupt_id: request } = await firstQuestion(olive, "exp-restart");
    await h.sdk(first, await token("sid", "Sid Kumar", ["reviewer"])).thread("exp-restart").respond(`${request}.1`, { type: "approve" });
    await h.sdk(first, await token("sam", "Sam Reyes", ["reviewer"])).thread("exp-restart").respond(`${request}.0`, { type: "approve" });
    await h.sdk(first, await token("tom", "Tom Ito", ["reviewer"])).thread("exp-restart").respond(`${request}.0`, { type: "approve" });
    const last = async () => (((await olive.thread("exp-restart").getState())["messages"] ?? []) as Array<{ type: string }>).at(-1)?.type;
    await vi.waitFor(async () => expect(await last()).toBe("ai"), UI);
    olive.close();
    await first.close();

    // The new hub's replay of the thread is its state: no message or question events.
    const hub = await h.hub({ dataDir: dir });
    const rita = await h.person(hub, "rita", "Rita", ["reviewer", "observer"], { route: "#/threads/exp-restart" });
    await rita.getByRole("article", { name: "Message from human" }).getByText(/^Ada Lovelace/).waitFor(UI);
    await rita.getByRole("article", { name: "Message from ai" }).first().getByText(/^I will refund order A-1027/).waitFor(UI);
    await rita.getByRole("article", { name: "Message from tool" }).filter({ hasText: "send_email" }).getByText(/^Email .* sent to ada@example.com/).waitFor(UI);
    expect(await rita.getByText("No messages in this run yet.").count()).toBe(0);
    const questions = rita.getByRole("region", { name: "Questions" });
    await questions.getByText("Votes: Sam Reyes approved, Tom Ito approved").waitFor(UI);
    await questions.getByRole("listitem").filter({ hasText: /^answeredsend_email\(to: "ada@example.com"/ }).getByText("answered by Sid Kumar").waitFor(UI);
    expect(await questions.getByText("No questions asked.").count()).toBe(0);
  });
  it("open dev mode: two tabs act as rita and sam and complete the refund's two-approval quorum", async () => {
    const hub = await h.hub({ jwtSecret: undefined });
    const dev = h.sdk(hub);
    await dev.thread("exp-open").run("expense-approval", {});
    const { interrupt_id: request } = await firstQuestion(dev, "exp-open");
    await dev.thread("exp-open").respond(`${request}.1`, { type: "approve" }); // the email, as dev (support: anyone)
    const tab = async (name: string): Promise<Page> => {
      const { page, errors, close } = await openPage(h.browser, `${hub.url}/#/threads/exp-open`);
      h.defer(async () => {
        expect(errors).toEqual([]);
        await close();
      });
      await page.getByRole("button", { name: "Act as…" }).click();
      await page.getByLabel("Act as user").fill(name);
      await page.getByRole("button", { name: "Act as", exact: true }).click();
      await page.getByLabel(new RegExp(`^Signed in as ${name} `)).waitFor(UI);
      return page;
    };
    const rita = await tab("rita");
    const sam = await tab("sam");
    // The inbox's queue copy of the refund's item does not become a question of the run view's own.
    await rita.getByRole("link", { name: "1. issue_refund" }).waitFor(UI);
    expect(await rita.getByRole("region", { name: "Questions" }).getByRole("listitem").filter({ hasText: /^open/ }).count()).toBe(1);
    await rita.getByRole("link", { name: "1. issue_refund" }).click();
    await rita.getByRole("button", { name: "Approve", exact: true }).click();
    await rita.getByText("1 of 2 approved: rita", { exact: true }).waitFor(UI);
    // Sam's inbox row shows the vote as it lands, then he answers from there.
    await sam.getByRole("link", { name: /^Inbox/ }).click();
    const refund = rowOf(sam, /^issue_refund\(order: "A-1027"/);
    await refund.getByText("1 of 2 approved: rita", { exact: true }).waitFor(UI);
    await refund.getByRole("link", { name: /^issue_refund/ }).click();
    await sam.getByRole("button", { name: "Approve", exact: true }).click();
    await sam.getByRole("status").filter({ hasText: "The run resumed." }).waitFor(UI);
    const messages = async () => ((await dev.thread("exp-open").getState())["messages"] ?? []) as Array<{ type: string; name?: string; status?: string }>;
    await vi.waitFor(async () => expect((await messages()).filter((m) => m.type === "tool").map((m) => [m.name, m.status])).toEqual([["issue_refund", "success"], ["send_email", "success"]]), UI);
  });
});
