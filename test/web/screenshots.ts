/**
 * `npm run screenshots`: regenerates the README's pictures of the web app —
 * the inbox, an item and a run view (desktop), the inbox on a phone, and
 * one action of the expense-approval demo's two-action request —
 * from a real hub with the demo assistants (and the e2e tests' routed
 * `budget` question), in Debian's Chromium. A colleague has claimed one item,
 * is looking at another and has just answered a third, so the pictures show
 * what a team sees.
 */
import { join } from "node:path";
import { HubClient } from "../../client/index.ts";
import { signInLink } from "../../client/cli/commands/token.ts";
import { mintToken } from "../../hub/auth/index.ts";
import { silentLogger, startHub } from "../../hub/index.ts";
import { launchBrowser, openPage } from "../support/browser.ts";
import { webAssistants } from "./assistants.ts";
import { buildWebApp } from "./harness.ts";

const root = join(import.meta.dirname, "../..");
const out = (name: string) => join(root, "docs", name);
const SECRET = "screenshots-secret-that-is-32-bytes!!";

buildWebApp();
const hub = await startHub({ port: 0, dataDir: null, jwtSecret: SECRET, logger: silentLogger, assistants: webAssistants({ tokenDelayMs: 1 }) });
const token = (sub: string, name: string, roles: string[]) => mintToken({ sub, name, roles, expiresIn: "1h" }, SECRET);
const operator = new HubClient({ url: hub.url, token: await token("u_olive", "Olive", ["operator", "observer"]) });
const rita = new HubClient({ url: hub.url, token: await token("u_rita", "Rita Alves", ["reviewer", "observer"]) });

async function question(threadId: string, index = 0): Promise<{ interrupt_id: string }> {
  const thread = rita.thread(threadId);
  await thread.subscribe(["input", "lifecycle"]);
  const ready = () => thread.interrupts[index];
  return ready() ?? new Promise((resolve) => thread.on("interrupts", () => ready() && resolve(ready() as { interrupt_id: string })));
}

await operator.thread("fanout-7").run("parallel-review", {});
await operator.thread("release-notes-q3").run("review", { topic: "the Q3 release" });
await operator.thread("pricing-page").run("review", { topic: "the pricing page" });
await operator.thread("budget-q3").run("budget", { expires: "45m" });
await operator.thread("launch-mail").run("triage", { to: "team@example.com" });
const [fanout, release, pricing, budget] = await Promise.all([question("fanout-7"), question("release-notes-q3"), question("pricing-page"), question("budget-q3"), question("launch-mail")]);

// Rita claims one item and looks at another.
await rita.thread("pricing-page").claim(pricing.interrupt_id);
const ritaInbox = rita.queue("*");
await ritaInbox.subscribe();
await ritaInbox.setPresence({ looking_at: release.interrupt_id, thread_id: "release-notes-q3" });
await rita.thread("release-notes-q3").setPresence({ view: "run" });

const browser = await launchBrowser();
const link = signInLink(hub.url, await token("u_ada", "Ada Novak", ["reviewer", "observer", "operator"]));
const settle = (page: import("playwright-core").Page) => page.waitForTimeout(700);
const desk = await openPage(browser, link);
const phone = await openPage(browser, link, { phone: true });
for (const { page } of [desk, phone]) await page.getByRole("link", { name: "Review by r1" }).waitFor();
// …and answers a third while Ada's inbox is open (the inbox lists what it saw resolved).
await rita.thread("fanout-7").respond(fanout.interrupt_id, { approve: true });
await desk.page.getByText(/^answered by Rita Alves/).waitFor();
await settle(desk.page);
await desk.page.screenshot({ path: out("web-inbox.png") });

await desk.page.goto(`${hub.url}/#/items/budget-q3/${budget.interrupt_id}`);
await desk.page.getByRole("button", { name: "Approve" }).waitFor();
await desk.page.getByLabel("Comment").fill("Cloud is up 8%: fine if the new cluster replaces the old one.");
await settle(desk.page);
await desk.page.screenshot({ path: out("web-item.png") });

await desk.page.goto(`${hub.url}/#/threads/release-notes-q3`);
await desk.page.getByRole("heading", { name: "Timeline" }).waitFor();
await desk.page.getByRole("img", { name: /Watching: .*Rita Alves/ }).waitFor();
await settle(desk.page);
await desk.page.screenshot({ path: out("web-run.png") });

await phone.page.getByText(/^answered by Rita Alves/).waitFor();
await settle(phone.page);
await phone.page.screenshot({ path: out("web-inbox-phone.png") });

// expense-approval: one interrupt, two actions in two queues. Sid (support) has edited the
// email; Sam has voted on the refund (two of rita, sam, tom must approve); Rita looks at the refund.
await operator.thread("refund-a1027").run("expense-approval", {});
const [refundQuestion] = await Promise.all([question("refund-a1027")]);
const group = refundQuestion.interrupt_id.replace(/\.\d+$/, ""); // the thread asked the interrupt; a queue copy names an action's item
const sid = new HubClient({ url: hub.url, token: await token("sid", "Sid Okafor", ["reviewer", "observer"]) });
const sam = new HubClient({ url: hub.url, token: await token("sam", "Sam Reyes", ["reviewer", "observer"]) });
const ritaPage = await openPage(browser, signInLink(hub.url, await token("rita", "Rita Alves", ["reviewer", "observer"])));
// Her inbox lists both actions of the request together ("action 1 of 2", "action 2 of 2").
await ritaPage.page.getByRole("link", { name: /^send_email\(to: "ada@example.com"/ }).waitFor();
await sid.thread("refund-a1027").respond(`${group}.1`, { type: "edit", edited_action: { name: "send_email", args: { to: "ada@example.com", subject: "Your refund for order A-1027", body: "We are refunding 120 EUR. Sorry it arrived broken." } } });
await sam.thread("refund-a1027").respond(`${group}.0`, { type: "approve" });
await ritaPage.page.goto(`${hub.url}/#/items/refund-a1027/${group}.0`);
await ritaPage.page.getByRole("heading", { name: "This request's actions" }).waitFor();
await ritaPage.page.getByText(/edited by Sid Okafor/).waitFor();
await settle(ritaPage.page);
await ritaPage.page.screenshot({ path: out("web-actions.png") });
sid.close();
sam.close();

await browser.close();
rita.close();
operator.close();
await hub.close();
console.log("wrote docs/web-inbox.png, docs/web-item.png, docs/web-run.png, docs/web-inbox-phone.png");
