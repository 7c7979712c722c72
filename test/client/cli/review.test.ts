/**
 * `switchboard review` against a real hub, typed on stdin: two reviewers on
 * the three parallel interrupts of `parallel-review` see each other's claims
 * and answers live, a late answer is told who won, a claimed item is refused
 * to the other, and the run resumes once all are answered.
 * Also the queue fallback when the hub has no review queues.
 * In process, except the piped-input test (a real process on a real pipe).
 */
import { describe, expect, it } from "vitest";
import { HubClient, HubClientError } from "../../../client/index.ts";
import { mintToken } from "../../../hub/auth/index.ts";
import { SECRET, cli, createThread, spawnCli, startTestHub } from "./harness.ts";

describe("switchboard review", { timeout: 90_000 }, () => {
  it("two reviewers answer parallel interrupts and see each other's claims and answers live", async () => {
    const hub = await startTestHub({ jwtSecret: SECRET });
    const alice = await mintToken({ sub: "alice", name: "Alice", roles: ["observer", "reviewer"] }, SECRET);
    const bob = await mintToken({ sub: "bob", name: "Bob", roles: ["observer", "reviewer"] }, SECRET);
    // Carol starts the run: a run's starter may not approve it herself.
    const carol = await mintToken({ sub: "carol", roles: ["observer", "operator"] }, SECRET);
    const run = cli(["run", "parallel-review", "--url", hub.url, "--thread", "th-par", "--wait", "--token", carol]);
    await run.waitFor("waiting for 3 answers", "stderr");

    const a = cli(["review", "--url", hub.url, "--thread", "th-par", "--token", alice]);
    const b = cli(["review", "--url", hub.url, "--thread", "th-par", "--token", bob]);
    await a.waitFor("3 open items:");
    await b.waitFor("3 open items:");
    const first = await a.waitFor(/^ {2}\[1\] \S+ r\d: \{"kind":"review","who":"r\d"\}$/);
    const firstId = /\[1\] (\S+)/.exec(first)?.[1] ?? "";

    a.type("show 1");
    await a.waitFor(/^\s+"kind": "review",$/);
    a.type('answer 1 "yes"');
    await a.waitFor('answered [1] with "yes"');
    // Bob sees Alice's answer arrive, with her name; his late answer is told who won.
    await b.waitFor(`- [1] ${firstId} answered by Alice (alice)`);
    await run.waitFor(`✔ interrupt ${firstId} answered by Alice (alice)`);
    b.type('answer 1 "no"');
    await b.waitFor("is no longer open: answered by Alice (alice)", "stderr");

    // Alice claims [2]: Bob sees it taken and cannot answer it.
    a.type("claim 2 60");
    await a.waitFor(/^claimed \[2\] until /);
    await b.waitFor("[2] claimed by Alice (alice)");
    b.type('answer 2 "no"');
    await b.waitFor("someone else holds the claim", "stderr");
    b.type("list");
    await b.waitFor(/^ {2}\[2\] \S+ r\d \(claimed by Alice \(alice\)\): /);

    a.type('answer 2 {"ok": true}');
    b.type('answer 3 {"ok": true}');
    await a.waitForAll(['answered [2] with {"ok":true}', /^- \[3\] \S+ answered by Bob \(bob\)$/]);
    await b.waitForAll(['answered [3] with {"ok":true}', /^- \[2\] \S+ answered by Alice \(alice\)$/]);

    await run.waitFor(/^● run \S+ completed$/);
    await run.waitFor(/^final state: .*"joined":true/);
    await run.expectExit(0);
    a.type("quit");
    await a.expectExit(0);
    b.endInput();
    await b.expectExit(0);
  });

  // A real process reading a real pipe: input is taken as it comes, and its end quits.
  it("piped input: `wait` then answer, in one go", async () => {
    const hub = await startTestHub();
    await createThread(hub.url, "th-pipe");
    const review = spawnCli(["review", "--url", hub.url, "--thread", "th-pipe"]);
    await review.waitFor("no open items");
    review.type("wait");
    review.type("answer 1 --text approved");
    review.endInput();
    const run = cli(["run", "review", "--url", hub.url, "--thread", "th-pipe", "--wait"]);
    await review.waitFor("+ new item");
    await review.waitFor('answered [1] with "approved"');
    await review.expectExit(0);
    await run.waitFor(/^final state: .*"decision":"approved"/);
    await run.expectExit(0);
  });

  it("--json: the items, each answer, and who answered, one record per line", async () => {
    const hub = await startTestHub();
    await cli(["run", "review", "--url", hub.url, "--thread", "th-rjson"]).expectExit(3);
    const review = cli(["review", "--url", hub.url, "--thread", "th-rjson", "--json"]);
    await review.waitFor('"type":"items"');
    review.type("answer 1 true");
    review.endInput();
    await review.expectExit(0);
    const records = review.records();
    expect(records.length).toBe(review.lines.stdout.filter((l) => l !== "").length);
    const items = records.find((r) => r["type"] === "items");
    expect(items).toMatchObject({ source: "thread th-rjson", items: [{ n: 1, status: "open", node: "review", payload: { kind: "review" } }] });
    expect(records).toContainEqual(expect.objectContaining({ type: "answer", ok: true, value: true }));
    expect(records).toContainEqual(expect.objectContaining({ type: "answered", outcome: "answered", answered_by: { sub: "dev", name: "Developer" } }));
  });

  it("an answer that looks like JSON must parse; plain text needs quotes or --text; a refused answer sends nothing", async () => {
    const hub = await startTestHub();
    await cli(["run", "review", "--url", hub.url, "--thread", "th-parse"]).expectExit(3);
    const review = cli(["review", "--url", hub.url, "--thread", "th-parse"]);
    await review.waitFor("1 open item");
    review.type("answer 1 {approve: true");
    await review.waitFor(/answer is not valid JSON .*: fix it, or send it as text with --text/, "stderr");
    review.type("answer 1 [1, 2");
    await review.waitFor(/answer is not valid JSON/, "stderr");
    review.type("answer 1 looks good");
    await review.waitFor('plain text needs quotes: answer 1 "looks good", or answer 1 --text looks good', "stderr");
    review.type("list");
    await review.waitFor("1 open item");
    review.type("answer 1 --text {approve: true");
    await review.waitFor('answered [1] with "{approve: true"');
    review.endInput();
    await review.expectExit(0);
  });

  it("bad commands are reported and the session goes on", async () => {
    const hub = await startTestHub();
    await createThread(hub.url, "th-bad");
    const review = cli(["review", "--url", hub.url, "--thread", "th-bad"]);
    await review.waitFor("no open items");
    review.type("frobnicate");
    await review.waitFor('unknown command "frobnicate"', "stderr");
    review.type('answer 7 "yes"');
    await review.waitFor("no open item 7", "stderr");
    review.type("list");
    await review.waitFor("no open items");
    review.endInput();
    await review.expectExit(0);
  });

  it("a queue's item that is one action of a multi-action request is listed as that action, with its arguments", async () => {
    const hub = await startTestHub();
    const run = cli(["run", "expense-approval", "--url", hub.url, "--thread", "th-actions"]);
    await run.expectExit(3);
    // Open dev mode: dev.rita acts as rita, one of the refund's finance candidates.
    const review = cli(["review", "--url", hub.url, "--queue", "finance", "--token", "dev.rita"]);
    await review.waitFor(/^ {2}\[1\] \S+\.0 thread th-actions human_review: action 1 of 2: issue_refund \{"order":"A-1027","amount":120,"currency":"EUR","reason":"arrived broken"\}$/);
    review.type('answer 1 {"type":"approve"}');
    await review.waitFor('answered [1] with {"type":"approve"}');
    review.endInput();
    await review.expectExit(0);
  });

  it("review queues: used when the hub has them; otherwise --thread is the fallback, and its absence is explained", async () => {
    const hub = await startTestHub();
    const queues = await queuesSupported(hub.url);
    const noThread = cli(["review", "--url", hub.url, "--queue", "legal"]);
    if (queues) {
      await noThread.waitFor("reviewing queue legal");
      noThread.endInput();
      await noThread.expectExit(0);
    } else {
      await noThread.expectExit(1);
      expect(noThread.stderr).toContain("this hub does not support review queues yet");
      expect(noThread.stderr).toContain("switchboard review --thread <id>");
      const fallback = cli(["review", "--url", hub.url, "--queue", "legal", "--thread", "th-q"]);
      await fallback.waitFor("note: this hub does not support review queues yet: reviewing the pending interrupts of thread th-q instead");
      await fallback.waitFor("reviewing thread th-q");
      fallback.endInput();
      await fallback.expectExit(0);
    }
    const help = cli(["review", "--help"]);
    await help.expectExit(0);
    expect(help.stdout).toContain("fall back to");
  });
});

async function queuesSupported(url: string): Promise<boolean> {
  const client = new HubClient({ url, reconnect: false });
  try {
    await client.queue("probe").subscribe();
    return true;
  } catch (error) {
    if (error instanceof HubClientError && error.code === "not_supported") return false;
    throw error;
  } finally {
    client.close();
  }
}
