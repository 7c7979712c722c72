/**
 * npm run bench:web [-- --quick] [-- --out FILE]
 *
 * The web app measured against a real hub (SQLite, JWT, in this process) in
 * Debian's Chromium: how long a question takes from the hub to a person's
 * open inbox, how long "answered elsewhere" takes to show, how the inbox
 * copes with 1,000 open items, and how big the built app is. Writes the web
 * section of docs/benchmarks.md (between its markers; the rest of the file
 * stays as `npm run bench` wrote it). --quick: fewer items, nothing written
 * unless --out is given.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import type { BrowserContext, Page } from "playwright-core";
import { HubClient, HubClientError } from "../../client/index.ts";
import { signInLink } from "../../client/cli/commands/token.ts";
import { END, START, StateGraph, interrupt, lastValue } from "../../engine/index.ts";
import { mintToken } from "../../hub/auth/index.ts";
import { silentLogger, startHub, type AssistantFactory } from "../../hub/index.ts";
import { CHROMIUM, launchBrowser } from "../support/browser.ts";
import { buildWebApp } from "../web/harness.ts";
import { machineInfo } from "./lib/machine.ts";
import { replaceWebSection } from "./lib/document.ts";
import { formatValue } from "./lib/report.ts";

const formatBytes = (n: number) => formatValue(n, "bytes");

const ROOT = resolve(import.meta.dirname, "../..");
const { values: args } = parseArgs({ options: { quick: { type: "boolean", default: false }, out: { type: "string" } }, strict: true });
const QUICK = args.quick;
const ITEMS = QUICK ? 20 : 100;
const BIG = QUICK ? 200 : 1000;
const LOADS = QUICK ? 2 : 5;
const UPDATES = QUICK ? 5 : 20;
const out = args.out !== undefined ? resolve(args.out) : QUICK ? undefined : join(ROOT, "docs/benchmarks.md");
const SECRET = "bench-web-secret-that-is-32-bytes-long";

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The bench's one assistant: asks at once (no model), so every millisecond measured is the hub's and the page's. */
const assistants: AssistantFactory = (checkpointer) => [
  {
    id: "ask",
    description: "bench: one question, asked at once",
    graph: new StateGraph({ n: lastValue<number>(), answer: lastValue<unknown>() })
      .addNode("ask", (state) => ({ answer: interrupt<unknown>({ question: `Approve request ${state.n ?? 0}?`, review: { queue: "bench" } }) }))
      .addEdge(START, "ask")
      .addEdge("ask", END)
      .compile({ checkpointer, name: "ask" }),
  },
];

// ── the hub, with the hook that stamps when an event leaves it ──────────────
/** interrupt id → when the hub emitted its input.requested / input.answered (its event transformer, before numbering, encoding and fan-out). */
const requestedAt = new Map<string, number>();
const answeredAt = new Map<string, number>();
const dataDir = mkdtempSync(join(tmpdir(), "sb-bench-web-"));
buildWebApp();
const hub = await startHub({
  port: 0,
  dataDir,
  jwtSecret: SECRET,
  logger: silentLogger,
  assistants,
  transformEvent: (event) => {
    if (event.method === "input.requested") requestedAt.set(event.params.data.interrupt_id, now());
    else if (event.method === "input.answered") for (const id of event.params.data.interrupt_ids) answeredAt.set(id, now());
    return event;
  },
});
const token = (sub: string, name: string, roles: string[]) => mintToken({ sub, name, roles, expiresIn: "2h" }, SECRET);
const operator = new HubClient({ url: hub.url, token: await token("u_op", "Operator", ["operator", "observer"]) });
const other = new HubClient({ url: hub.url, token: await token("u_rita", "Rita", ["reviewer", "observer"]) });
const otherQueue = other.queue("*");
await otherQueue.subscribe();
const browser = await launchBrowser();
const chromiumVersion = browser.version();
const reviewerLink = signInLink(hub.url, await token("u_ada", "Ada", ["reviewer", "observer"]));

// ── the page's instruments: socket frame arrival, row inserted, next frame, row marked done ──
const INSTRUMENT = `(() => {
  const now = () => performance.timeOrigin + performance.now();
  const b = (window.__bench = { frames: {}, rows: {}, painted: {}, done: {}, count: 0, firstRowAt: 0, fullAt: 0, want: 0 });
  const decoder = new TextDecoder();
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...a) {
      super(...a);
      this.addEventListener("message", (m) => {
        const t = now();
        const text = typeof m.data === "string" ? m.data : m.data instanceof ArrayBuffer ? decoder.decode(m.data) : "";
        if (!text.includes('"input.requested"')) return;
        for (const x of text.matchAll(/"interrupt_id":"([^"]+)"/g)) if (!(x[1] in b.frames)) b.frames[x[1]] = t;
      });
    }
  };
  const seen = (row, t) => {
    const id = row.dataset.interrupt;
    if (!(id in b.rows)) {
      b.rows[id] = t;
      b.count++;
      if (b.count === 1) b.firstRowAt = t;
      if (b.want > 0 && b.count === b.want) b.fullAt = t;
      requestAnimationFrame(() => (b.painted[id] = now()));
    }
    if (row.classList.contains("row-done") && !(id in b.done)) b.done[id] = t;
  };
  new MutationObserver((records) => {
    const t = now();
    for (const r of records) {
      if (r.type === "attributes") {
        if (r.target instanceof HTMLElement && r.target.matches("tr[data-interrupt]")) seen(r.target, t);
        continue;
      }
      for (const n of r.addedNodes) {
        if (!(n instanceof HTMLElement)) continue;
        if (n.matches("tr[data-interrupt]")) seen(n, t);
        else for (const row of n.querySelectorAll("tr[data-interrupt]")) seen(row, t);
      }
    }
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["class"] });
})();`;

async function openInbox(want = 0): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript({ content: INSTRUMENT.replace("want: 0", `want: ${want}`) });
  const page = await context.newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  await page.goto(reviewerLink);
  await page.getByLabel(/Signed in as Ada/).waitFor({ timeout: 30_000 });
  return { context, page };
}

type Bench = { frames: Record<string, number>; rows: Record<string, number>; painted: Record<string, number>; done: Record<string, number>; count: number; firstRowAt: number; fullAt: number };
const read = (page: Page): Promise<Bench> => page.evaluate(() => (window as unknown as { __bench: Bench }).__bench);

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Starts a run without subscribing to it; waits out the hub's per-connection command rate (50/s by default) instead of raising it. */
async function startRun(threadId: string, n: number): Promise<void> {
  for (;;) {
    try {
      await operator.thread(threadId).run("ask", { n }, { subscribe: false });
      return;
    } catch (error) {
      if (!(error instanceof HubClientError && error.code === "rate_limited")) throw error;
      const wait = error.details?.["retry_after_ms"];
      await sleep(typeof wait === "number" ? wait : 20);
    }
  }
}

let runCounter = 0;
/** Starts one run; resolves with its question's id once the hub has emitted it. */
async function ask(): Promise<string> {
  const n = ++runCounter;
  const before = new Set(requestedAt.keys());
  await startRun(`q-${n}`, n);
  return waitFor(`question ${n}`, async () => [...requestedAt.keys()].find((id) => !before.has(id)));
}

/** Answers one open item from another reviewer's client; returns when the bench sent it. */
async function answerElsewhere(interruptId: string): Promise<number> {
  const item = otherQueue.items.find((i) => i.interrupt_id === interruptId) ?? (await waitFor("the item in the other reviewer's queue", async () => otherQueue.items.find((i) => i.interrupt_id === interruptId)));
  const sent = now();
  await other.thread(item.thread_id ?? "").respond(interruptId, { approve: true });
  return sent;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}
const ms = (v: number) => (Number.isFinite(v) ? (v < 10 ? `${v.toFixed(2)} ms` : v < 1000 ? `${v.toFixed(1)} ms` : `${(v / 1000).toFixed(2)} s`) : "n/a");
const dist = (values: readonly number[]) => `p50 ${ms(percentile(values, 50))} · p99 ${ms(percentile(values, 99))} · max ${ms(Math.max(...values))} (n = ${values.length})`;
const medianRange = (values: readonly number[]) => `${ms(percentile(values, 50))} (${ms(Math.min(...values))}–${ms(Math.max(...values))}, n = ${values.length})`;

interface Result {
  metric: string;
  value: string;
}
const results: Result[] = [];
const log = (line: string) => console.log(`  ${line}`);
const started = performance.now();
const startLoad = loadavg();
const machine = machineInfo(ROOT, ["react", "react-dom", "vite", "playwright-core"]);

// ── 1. a question reaching an open inbox, and "answered elsewhere" reaching it ──
console.log(`\n▶ web-latency: ${ITEMS} questions, one at a time, into an open inbox`);
{
  const { context, page } = await openInbox();
  await page.getByText("Nothing waits for you.").waitFor({ timeout: 30_000 });
  // Warm-up: the first question pays for code paths the others find warm.
  const warm = await ask();
  await waitFor("warm-up row", async () => ((await read(page)).painted[warm] ? true : undefined));
  await answerElsewhere(warm);
  await waitFor("warm-up answered", async () => ((await read(page)).done[warm] ? true : undefined));

  const ids: string[] = [];
  for (let i = 0; i < ITEMS; i++) {
    const id = await ask();
    ids.push(id);
    await waitFor(`row ${i}`, async () => ((await read(page)).painted[id] ? true : undefined));
  }
  const b = await read(page);
  const toFrame = ids.map((id) => (b.frames[id] ?? Number.NaN) - (requestedAt.get(id) ?? Number.NaN));
  const toRow = ids.map((id) => (b.rows[id] ?? Number.NaN) - (requestedAt.get(id) ?? Number.NaN));
  const toPaint = ids.map((id) => (b.painted[id] ?? Number.NaN) - (requestedAt.get(id) ?? Number.NaN));
  const frameToRow = ids.map((id) => (b.rows[id] ?? Number.NaN) - (b.frames[id] ?? Number.NaN));
  log(`requested → visible: ${dist(toPaint)}`);
  results.push(
    { metric: `input.requested leaves the hub → the row is visible in an open inbox (next animation frame after insertion), ${ITEMS} items one at a time`, value: dist(toPaint) },
    { metric: "… of which: hub → the frame arrives at the page's socket", value: dist(toFrame) },
    { metric: "… of which: frame arrives → the row is in the DOM (SDK + React)", value: dist(frameToRow) },
    { metric: "… input.requested leaves the hub → the row is in the DOM", value: dist(toRow) },
  );

  const answerSent: number[] = [];
  const hubToDone: number[] = [];
  const sentToDone: number[] = [];
  for (const id of ids) {
    const sent = await answerElsewhere(id);
    const done = await waitFor(`answered ${id}`, async () => (await read(page)).done[id]);
    answerSent.push(sent);
    sentToDone.push(done - sent);
    hubToDone.push(done - (answeredAt.get(id) ?? Number.NaN));
  }
  log(`answered elsewhere → marked answered: ${dist(sentToDone)}`);
  results.push(
    { metric: `another reviewer's client sends input.respond → the row says "answered by Rita" in the open inbox, ${ITEMS} items one at a time`, value: dist(sentToDone) },
    { metric: "… of which: input.answered leaves the hub → the row is marked", value: dist(hubToDone) },
  );
  await context.close();
}

// ── 2. the inbox with 1,000 open items ──────────────────────────────────────
console.log(`\n▶ web-big-inbox: ${BIG} open items`);
{
  const t0 = performance.now();
  const pending: Promise<string>[] = [];
  const base = otherQueue.items.length;
  for (let i = 0; i < BIG; i++) {
    const n = ++runCounter;
    pending.push(startRun(`big-${n}`, n).then(() => ""));
    if (pending.length >= 25) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
  await waitFor(`${BIG} open items`, async () => (otherQueue.items.length >= base + BIG ? true : undefined), 300_000);
  const open = otherQueue.items.length;
  log(`${open} open items in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const firstRows: number[] = [];
  const fullRows: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const { context, page } = await openInbox(open);
    await waitFor("every row", async () => ((await read(page)).fullAt > 0 ? true : undefined), 60_000);
    const b = await read(page);
    const origin = await page.evaluate(() => performance.timeOrigin);
    firstRows.push(b.firstRowAt - origin);
    fullRows.push(b.fullAt - origin);
    log(`load ${i + 1}: first row ${ms(b.firstRowAt - origin)}, all ${open} rows ${ms(b.fullAt - origin)}`);
    await context.close();
  }
  const sameTime = firstRows.every((t, i) => t === fullRows[i]);
  results.push(
    sameTime
      ? { metric: `inbox with ${open} open items, fresh tab: navigation start → all ${open} rows in the DOM (load, sign-in, connect, snapshot; the snapshot renders at once, first row = last row)`, value: medianRange(fullRows) }
      : { metric: `inbox with ${open} open items, fresh tab: navigation start → first row / all ${open} rows in the DOM (load, sign-in, connect, snapshot)`, value: `${medianRange(firstRows)} / ${medianRange(fullRows)}` },
  );

  // One update at a time into the full inbox: a new question, and one answered elsewhere.
  const { context, page } = await openInbox(open);
  await waitFor("every row", async () => ((await read(page)).fullAt > 0 ? true : undefined), 60_000);
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  // ThreadTime is the main thread's CPU time (s): unlike task wall time it does not grow when other processes share the CPU.
  const task = async () => ((await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "ThreadTime")?.value ?? Number.NaN) * 1000;
  /** Main-thread CPU ms per second over 5 s with nothing happening but the clock. */
  const idle = async () => {
    await sleep(1000);
    const from = await task();
    const t = performance.now();
    await sleep(5000);
    return (((await task()) - from) / (performance.now() - t)) * 1000;
  };
  const idleYoung = await idle();
  log(`idle with ${open} rows, ages under a minute: main thread busy ${ms(idleYoung)} per second`);
  /** UPDATES new questions, then UPDATES answers elsewhere, one at a time, into the open tab. */
  const updates = async (): Promise<{ arrive: number[]; answered: number[]; hubToDone: number[] }> => {
    const arrive: number[] = [];
    for (let i = 0; i < UPDATES; i++) {
      const id = await ask();
      await waitFor("new row", async () => ((await read(page)).painted[id] ? true : undefined));
      const b = await read(page);
      arrive.push((b.painted[id] ?? Number.NaN) - (requestedAt.get(id) ?? Number.NaN));
    }
    const answered: number[] = [];
    const hubToDone: number[] = [];
    const shown = await read(page);
    const targets = otherQueue.items.filter((i) => i.interrupt_id in shown.rows && !(i.interrupt_id in shown.done)).slice(0, UPDATES).map((i) => i.interrupt_id);
    for (const id of targets) {
      const sent = await answerElsewhere(id);
      const done = await waitFor("row marked", async () => (await read(page)).done[id]);
      answered.push(done - sent);
      hubToDone.push(done - (answeredAt.get(id) ?? Number.NaN));
    }
    return { arrive, answered, hubToDone };
  };
  const young = await updates();
  log(`with ${open} rows, ages under a minute: new question visible ${dist(young.arrive)}; answered elsewhere marked ${dist(young.answered)}`);
  // Once every item is older than a minute, its age text changes once a minute: the usual state of a big inbox.
  const youngest = Math.max(...[...requestedAt.values()]);
  await sleep(Math.max(0, youngest + 61_000 - now()));
  const idleOld = await idle();
  log(`idle with ${open} rows, ages over a minute: main thread busy ${ms(idleOld)} per second`);
  const old = await updates();
  log(`with ${open} rows, ages over a minute: new question visible ${dist(old.arrive)}; answered elsewhere marked ${dist(old.answered)}`);
  results.push(
    { metric: `inbox showing ${open} items asked over a minute ago: one new question, input.requested leaves the hub → its row visible`, value: dist(old.arrive) },
    { metric: `inbox showing ${open} items asked over a minute ago: one item answered elsewhere, input.respond sent → its row marked answered`, value: dist(old.answered) },
    { metric: `inbox showing ${open} items asked over a minute ago, idle: main-thread CPU time per second`, value: ms(idleOld) },
    { metric: `inbox showing ${open} items all asked under a minute ago (every age text changes each second): one new question → its row visible`, value: dist(young.arrive) },
    { metric: `… one item answered elsewhere → its row marked answered`, value: dist(young.answered) },
    { metric: `… idle: main-thread CPU time per second`, value: ms(idleYoung) },
  );
  await context.close();
}

// ── 3. the built app's size ────────────────────────────────────────────────
console.log("\n▶ web-size: the built app");
{
  const dir = join(ROOT, "client/web/dist/assets");
  const files = readdirSync(dir).filter((f) => f.endsWith(".js") || f.endsWith(".css"));
  const sum = (ext: string, f: (bytes: Buffer) => number) => files.filter((n) => n.endsWith(ext)).reduce((t, n) => t + f(readFileSync(join(dir, n))), 0);
  const raw = (b: Buffer) => b.length;
  const gz = (b: Buffer) => gzipSync(b, { level: 9 }).length;
  const html = statSync(join(ROOT, "client/web/dist/index.html")).size;
  // What a first visit actually transfers from the hub (its own compression), per Chromium's resource timing.
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${hub.url}/`);
  await page.getByRole("heading", { name: "Sign in" }).waitFor({ timeout: 30_000 });
  const transferred = await page.evaluate<{ html: number; assets: number }>(`(() => {
    const nav = performance.getEntriesByType("navigation")[0];
    const assets = performance.getEntriesByType("resource").filter((r) => /\\/assets\\//.test(r.name));
    return { html: nav ? nav.transferSize : 0, assets: assets.reduce((t, r) => t + r.transferSize, 0) };
  })()`);
  await context.close();
  const entry = files.find((f) => /^index-.*\.js$/.test(f)) ?? "";
  const nodeOnly = files.filter((f) => /^node-socket-.*\.js$/.test(f));
  const onDemand = files.filter((f) => f.endsWith(".js") && f !== entry && !nodeOnly.includes(f));
  const one = (f: string, size: (b: Buffer) => number) => size(readFileSync(join(dir, f)));
  const many = (list: readonly string[], size: (b: Buffer) => number) => list.reduce((t, f) => t + one(f, size), 0);
  log(`JS ${formatBytes(sum(".js", raw))} (${formatBytes(sum(".js", gz))} gzipped), CSS ${formatBytes(sum(".css", raw))} (${formatBytes(sum(".css", gz))} gzipped)`);
  results.push(
    { metric: `JavaScript a first visit runs (${entry})`, value: `${formatBytes(one(entry, gz))} gzipped (gzip -9), ${formatBytes(one(entry, raw))} minified` },
    { metric: `JavaScript loaded on demand (${onDemand.join(", ") || "none"}: the item view — Markdown, JSON Schema validation — fetched when the page is idle or an item opens)`, value: `${formatBytes(many(onDemand, gz))} gzipped, ${formatBytes(many(onDemand, raw))} minified` },
    { metric: `all built JavaScript (besides ${nodeOnly.join(", ") || "nothing"}: the SDK's Node socket adapter, never loaded in a browser)`, value: `${formatBytes(sum(".js", gz) - many(nodeOnly, gz))} gzipped, ${formatBytes(sum(".js", raw) - many(nodeOnly, raw))} minified` },
    { metric: "built CSS", value: `${formatBytes(sum(".css", gz))} gzipped (gzip -9), ${formatBytes(sum(".css", raw))} minified` },
    { metric: "first visit (the sign-in page, before the idle prefetch): bytes over the wire from the hub, index.html + assets, the hub's own compression", value: `${formatBytes(transferred.html + transferred.assets)} (index.html ${formatBytes(html)} uncompressed)` },
  );
}

await browser.close();
operator.close();
other.close();
await hub.close();
rmSync(dataDir, { recursive: true, force: true });

// ── the report ─────────────────────────────────────────────────────────────
const section = [
  "## Web app: the inbox in Chromium",
  "",
  `Written by \`npm run bench:web\` (test/bench/web.ts${QUICK ? ", --quick" : ""}) on ${new Date().toISOString()}, commit ${machine.commit}, ` +
    `${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, Chromium ${chromiumVersion} (${CHROMIUM}, headless), ${machine.packages.join(", ")}; ` +
    `load average at start ${startLoad.map((v) => v.toFixed(2)).join(" / ")}, at end ${loadavg().map((v) => v.toFixed(2)).join(" / ")}; ${Math.round((performance.now() - started) / 1000)} s.`,
  "No peer: no other system serves this inbox; the numbers are for regressions and for what a reviewer feels.",
  "",
  "| metric | value |",
  "|---|---|",
  ...results.map((r) => `| ${r.metric} | ${r.value} |`),
  "",
  "How it is measured:",
  "",
  "- One hub in the bench process (SQLite in a temp dir, JWT auth, the built app served at `/`), one headless Chromium. The bench's assistant asks at once (no model), routed to the queue `bench`. The page is the real app, signed in by link as a reviewer; runs are started by an operator's SDK client, answers sent by another reviewer's SDK client.",
  "- *Leaves the hub* = the hub's event transformer hook sees the event (the last step before it is numbered, encoded and fanned out; the queue copy follows the review item's write). Both clocks are `performance.timeOrigin + performance.now()` on one machine.",
  "- In the page, an init script timestamps every socket frame carrying `input.requested` before the SDK reads it, and a MutationObserver timestamps each inbox row when it is inserted and when it gets the answered style; *visible* = the next `requestAnimationFrame` after insertion.",
  `- Latency rows: one question (or answer) at a time, each after the previous one is on screen; one warm-up first. The ${BIG}-item rows: ${BIG} runs left waiting, then ${LOADS} fresh tabs (navigation start = \`performance.timeOrigin\`), and into one open tab ${UPDATES} updates of each kind twice: while every item is under a minute old (every age text changes each second, the worst case) and once all are over a minute old (the usual state). Main-thread time is the renderer main thread's CPU time (\`ThreadTime\`, DevTools protocol \`Performance.getMetrics\`) over 5 s with nothing happening; wall-clock rows include waiting for the CPU when other processes use it (see the load average).`,
  "- Sizes: `client/web/dist/assets` after the production build, gzip level 9 by Node's zlib; the wire row is Chromium's resource-timing transferSize of a first visit.",
  "",
].join("\n");

console.log(`\n${section}`);
if (out) {
  let before = "";
  try {
    before = readFileSync(out, "utf8");
  } catch {
    // No document yet: the section is the document.
  }
  await writeFile(out, replaceWebSection(before, section));
  console.log(`wrote ${relative(process.cwd(), out)}`);
} else {
  console.log("(--quick: nothing written; pass --out FILE to write one)");
}
