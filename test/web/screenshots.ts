/**
 * `npm run screenshots`: regenerates the README's pictures of the web app —
 * the inbox, an item and a run view (desktop), and the inbox on a phone —
 * from a real hub with the demo assistants, in Debian's Chromium.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { HubClient } from "../../client/index.ts";
import { mintToken } from "../../hub/auth/index.ts";
import { demoAssistants, silentLogger, startHub } from "../../hub/index.ts";
import { launchBrowser, openPage } from "../support/browser.ts";

const root = join(import.meta.dirname, "../..");
const out = (name: string) => join(root, "docs", name);
const SECRET = "screenshots-secret-that-is-32-bytes!!";

execFileSync(process.execPath, [join(root, "client/web/build.mjs")], { stdio: "inherit" });
const hub = await startHub({ port: 0, dataDir: null, jwtSecret: SECRET, logger: silentLogger, assistants: demoAssistants({ tokenDelayMs: 1 }) });
const token = (sub: string, name: string, roles: string[]) => mintToken({ sub, name, roles, expiresIn: "1h" }, SECRET);
const operator = new HubClient({ url: hub.url, token: await token("u_olive", "Olive", ["operator", "observer"]) });

const review = operator.thread("release-notes-q3");
await review.run("review", { topic: "the Q3 release" });
await operator.thread("pricing-page").run("review", { topic: "the pricing page" });
await operator.thread("fanout-7").run("parallel-review", {});
await new Promise<void>((resolve) => review.on("interrupts", (list) => list.length > 0 && resolve()));

// A colleague has claimed one item and is looking at it.
const sam = new HubClient({ url: hub.url, token: await token("u_sam", "Sam Lee", ["reviewer", "observer"]) });
const samThread = sam.thread("release-notes-q3");
await samThread.subscribe(["input"]);
const [question] = samThread.interrupts.length > 0 ? samThread.interrupts : await new Promise<typeof samThread.interrupts>((r) => samThread.on("interrupts", (l) => l.length > 0 && r(l)));
const samInbox = sam.queue("*");
await samInbox.subscribe();
await samInbox.setPresence({ looking_at: question?.interrupt_id, thread_id: "release-notes-q3" });
await samThread.setPresence({ view: "run" });

const browser = await launchBrowser();
const link = `${hub.url}/#token=${encodeURIComponent(await token("u_rita", "Rita Alves", ["reviewer", "observer", "operator"]))}`;
const desk = await openPage(browser, link);
await desk.page.getByRole("link", { name: /quarterly release/ }).first().waitFor();
await desk.page.waitForTimeout(600);
await desk.page.screenshot({ path: out("web-inbox.png") });

await desk.page.goto(`${hub.url}/#/items/release-notes-q3/${question?.interrupt_id}`);
await desk.page.getByRole("button", { name: "Approve" }).waitFor();
await desk.page.waitForTimeout(600);
await desk.page.screenshot({ path: out("web-item.png") });

await desk.page.goto(`${hub.url}/#/threads/release-notes-q3`);
await desk.page.getByRole("heading", { name: "Timeline" }).waitFor();
await desk.page.waitForTimeout(600);
await desk.page.screenshot({ path: out("web-run.png") });

const phone = await openPage(browser, link, { phone: true });
await phone.page.getByRole("link", { name: /quarterly release/ }).first().waitFor();
await phone.page.waitForTimeout(600);
await phone.page.screenshot({ path: out("web-inbox-phone.png") });

await browser.close();
sam.close();
operator.close();
await hub.close();
console.log("wrote docs/web-inbox.png, docs/web-item.png, docs/web-run.png, docs/web-inbox-phone.png");
