/**
 * `switchboard watch` against a real hub: a watcher that joins before the
 * run (on a thread created empty, POST /threads) sees node progress, tokens, the interrupt open and who answered it,
 * then the resumed run; who is watching comes and goes (or presence is said
 * to be unsupported by the hub).
 */
import { describe, expect, it } from "vitest";
import { mintToken } from "../../../hub/auth/index.ts";
import { REVIEW_DRAFT } from "../../../hub/index.ts";
import { SECRET, cli, createThread, startTestHub } from "./harness.ts";

describe("switchboard watch", { timeout: 90_000 }, () => {
  it("shows a run live — tokens, the interrupt, who answered — and ends with --until-end", async () => {
    const hub = await startTestHub({ jwtSecret: SECRET });
    const ada = await mintToken({ sub: "ada", name: "Ada", roles: ["admin"] }, SECRET);
    const bob = await mintToken({ sub: "bob", name: "Bob", roles: ["admin"] }, SECRET);

    await createThread(hub.url, "th-watch", ada);
    const watch = cli(["watch", "th-watch", "--url", hub.url, "--until-end", "--name", "ada-laptop"], { SWITCHBOARD_TOKEN: ada });
    await watch.waitFor("watching thread th-watch");
    await watch.waitFor(/^— live/);
    const presence = await watch.waitFor(/^(presence: this hub does not relay presence|watching now: you)/);
    if (presence.startsWith("presence:")) expect(presence).toContain("other watchers are not shown");
    else {
      // A second watcher appears in the first one's view, under the name the hub stamps, and leaves again.
      const other = cli(["watch", "th-watch", "--url", hub.url, "--name", "bob-phone"], { SWITCHBOARD_TOKEN: bob });
      await other.waitFor("watching now: you, Ada [ada-laptop]");
      await watch.waitFor("watching now: you, Bob [bob-phone]");
      other.signal("SIGINT");
      await other.expectExit(130);
      await watch.waitFor("watching now: you (nobody else)");
    }

    const run = cli(["run", "review", "--url", hub.url, "--thread", "th-watch", "--token", ada]);
    await watch.waitFor(/^● run \S+ started$/);
    await watch.waitFor("▶ draft");
    expect(await watch.waitFor("draft │ ")).toContain(REVIEW_DRAFT);
    const opened = await watch.waitFor(/^\? interrupt (\S+) opened by review: \{"kind":"review"/);
    await watch.waitFor(/^● run \S+ interrupted$/);
    await run.expectExit(3);

    const id = /interrupt (\S+) opened/.exec(opened)?.[1] ?? "";
    const review = cli(["review", "--url", hub.url, "--thread", "th-watch", "--token", bob]);
    await review.waitFor("1 open item:");
    review.type(`answer ${id} --text approved`);
    await review.waitFor('answered [1] with "approved"');
    review.endInput();
    await review.expectExit(0);

    await watch.waitFor(`✔ interrupt ${id} answered by Bob (bob)`);
    await watch.waitFor("✓ finalize");
    await watch.waitFor(/^● run \S+ completed$/);
    await watch.waitFor(/^final state: .*"decision":"approved"/);
    await watch.expectExit(0);
  });

  it("joining after the run shows the current run from its start; Ctrl-C exits 130", async () => {
    const hub = await startTestHub();
    const run = cli(["run", "review", "--url", hub.url, "--thread", "th-late"]);
    await run.expectExit(3);
    const watch = cli(["watch", "th-late", "--url", hub.url]);
    await watch.waitFor("▶ draft");
    await watch.waitFor(/^\? interrupt \S+ opened by review/);
    await watch.waitFor(/^● run \S+ interrupted$/);
    await watch.waitFor(/^— live \(thread status: interrupted\)$/);
    watch.signal("SIGINT");
    await watch.expectExit(130);
  });

  it("--json prints records, including presence support", async () => {
    const hub = await startTestHub();
    await createThread(hub.url, "th-json");
    const watch = cli(["watch", "th-json", "--url", hub.url, "--json", "--until-end"]);
    await watch.waitFor('"type":"presence"');
    const run = cli(["run", "parallel-review", "--url", hub.url, "--thread", "th-json"]);
    await run.expectExit(3);
    await watch.waitFor('"status":"interrupted"');
    watch.signal("SIGTERM");
    await watch.expectExit(130);
    const records = watch.records();
    expect(records.filter((r) => r["type"] === "interrupt").map((r) => r["payload"])).toEqual(
      expect.arrayContaining([{ kind: "review", who: "r1" }, { kind: "review", who: "r2" }, { kind: "review", who: "r3" }]),
    );
    expect(records.find((r) => r["type"] === "presence")).toMatchObject({ thread_id: "th-json", supported: expect.any(Boolean) });
  });

  it("needs a thread id (exit 2)", async () => {
    const watch = cli(["watch"]);
    await watch.expectExit(2);
    expect(watch.stderr).toContain("watch needs a thread id");
  });
});
