/**
 * `switchboard run` against a real hub: the stream a user sees (node
 * progress, tokens, the interrupt with its id and payload, the final state),
 * the exit codes, --json records, --wait through an answer, and the errors.
 * In process, except the Ctrl-C test (a real signal to a real process).
 */
import { describe, expect, it } from "vitest";
import { mintToken } from "../../../hub/auth/index.ts";
import { REVIEW_DRAFT } from "../../../hub/index.ts";
import { SECRET, cli, spawnCli, startTestHub } from "./harness.ts";

describe("switchboard run", { timeout: 90_000 }, () => {
  it("streams node progress and tokens, prints the interrupt, ends interrupted (exit 3)", async () => {
    const hub = await startTestHub();
    const run = cli(["run", "review", "--url", hub.url, "--thread", "th-run", "--input", '{"topic":"the launch"}']);
    await run.waitFor(/^run \S+ of review on thread th-run$/);
    await run.waitFor("▶ draft");
    const tokens = await run.waitFor("draft │ ");
    expect(tokens).toContain(REVIEW_DRAFT);
    await run.waitFor("✓ draft");
    const opened = await run.waitFor(/^\? interrupt \S+ opened by review: /);
    await run.waitFor(/^● run \S+ interrupted$/);
    await run.waitFor(/^final state: .*"draft":"Dear team/);
    await run.waitFor("answer with `switchboard review --thread th-run`");
    await run.expectExit(3);

    const [pending] = await pendingIds(hub.url, "th-run");
    expect(opened).toContain(`interrupt ${pending ?? "(none pending on the hub)"} opened`);
    expect(opened).toContain('"kind":"review"');
    expect(run.stderr).toContain(`connecting to ${hub.url}`);
  });

  it("--json prints one record per line: run, node, tokens, interrupt, final", async () => {
    const hub = await startTestHub();
    const run = cli(["run", "review", "--url", hub.url, "--json"]);
    await run.expectExit(3);
    const records = run.records();
    expect(records.length).toBe(run.lines.stdout.filter((l) => l !== "").length);
    const types = records.map((r) => r["type"]);
    expect(types[0]).toBe("run");
    expect(records).toContainEqual(expect.objectContaining({ type: "node", node: "draft", status: "started" }));
    const tokens = records.filter((r) => r["type"] === "token");
    expect(tokens.length).toBeGreaterThan(10);
    expect(tokens.map((t) => t["text"]).join("")).toBe(REVIEW_DRAFT);
    const interrupt = records.find((r) => r["type"] === "interrupt");
    expect(interrupt).toMatchObject({ interrupt_id: expect.any(String), payload: { kind: "review", draft: REVIEW_DRAFT } });
    expect(records.at(-1)).toMatchObject({ type: "final", status: "interrupted", values: { draft: REVIEW_DRAFT }, interrupts: [{ interrupt_id: interrupt?.["interrupt_id"] }] });
  });

  it("--wait stays through the interrupt, shows who answered, follows the resume to completion (exit 0)", async () => {
    const hub = await startTestHub({ jwtSecret: SECRET });
    const carol = await mintToken({ sub: "carol", roles: ["admin"] }, SECRET);
    const alice = await mintToken({ sub: "alice", name: "Alice", roles: ["admin"] }, SECRET);
    const run = cli(["run", "review", "--url", hub.url, "--thread", "th-wait", "--wait"], { SWITCHBOARD_TOKEN: carol });
    await run.waitFor(/^\? interrupt /);
    await run.waitFor("waiting for 1 answer", "stderr");

    const review = cli(["review", "--url", hub.url, "--thread", "th-wait", "--token", alice]);
    await review.waitFor("1 open item:");
    review.type('answer 1 {"approve": true}');
    await review.waitFor('answered [1] with {"approve":true}');
    review.endInput();
    await review.expectExit(0);

    await run.waitFor(/answered by Alice \(alice\)$/);
    await run.waitFor("▶ finalize");
    await run.waitFor(/^● run \S+ completed$/);
    await run.waitFor(/^final state: .*"decision":\{"approve":true\}/);
    await run.expectExit(0);
  });

  // A real process: SIGINT reaches the bin's handler, which aborts the command.
  it("Ctrl-C stops following (exit 130) and says how to pick the thread up again", async () => {
    const hub = await startTestHub();
    const run = spawnCli(["run", "review", "--url", hub.url, "--thread", "th-ctrl-c", "--wait"]);
    await run.waitFor("waiting for 1 answer", "stderr");
    run.signal("SIGINT");
    await run.expectExit(130);
    expect(run.stderr).toContain("stopped watching; the run goes on (follow it with `switchboard watch th-ctrl-c`)");
  });

  it("refuses to start a run on a thread that waits for answers (a new run would be taken as the answer)", async () => {
    const hub = await startTestHub();
    await cli(["run", "review", "--url", hub.url, "--thread", "th-busy"]).expectExit(3);
    const again = cli(["run", "review", "--url", hub.url, "--thread", "th-busy"]);
    await again.expectExit(1);
    expect(again.stderr).toContain("thread th-busy is waiting for 1 answer: answer with `switchboard review --thread th-busy`");
    expect(await pendingIds(hub.url, "th-busy")).toHaveLength(1);
  });

  it("an unknown assistant is an error with the hub's message (exit 1)", async () => {
    const hub = await startTestHub();
    const run = cli(["run", "nope", "--url", hub.url]);
    await run.expectExit(1);
    expect(run.stderr).toMatch(/error: not_found: .*nope/);
  });

  it("an unreachable hub says how to start one (exit 1)", async () => {
    const hub = await startTestHub();
    const url = hub.url;
    await hub.close();
    const run = cli(["run", "review", "--url", url]);
    await run.expectExit(1);
    expect(run.stderr).toContain(`cannot reach the hub at ${url}`);
    expect(run.stderr).toContain("switchboard serve");
  });

  it("a JWT hub without a token asks for one (exit 1); a bad token is refused (exit 1)", async () => {
    const hub = await startTestHub({ jwtSecret: SECRET });
    const missing = cli(["run", "review", "--url", hub.url], { SWITCHBOARD_TOKEN: "" });
    await missing.expectExit(1);
    expect(missing.stderr).toContain("this hub requires a token");
    const bad = cli(["run", "review", "--url", hub.url, "--token", "not-a-jwt"]);
    await bad.expectExit(1);
    expect(bad.stderr).toMatch(/error: .*(unauthenticated|refused the token)/);
  });

  it("usage errors exit 2 with the command's usage line", async () => {
    const noAssistant = cli(["run"]);
    await noAssistant.expectExit(2);
    expect(noAssistant.stderr).toContain("run needs an assistant id");
    const badInput = cli(["run", "review", "--input", "{not json"]);
    await badInput.expectExit(2);
    expect(badInput.stderr).toContain("--input is not valid JSON");
    const arrayInput = cli(["run", "review", "--input", "[1]"]);
    await arrayInput.expectExit(2);
    const unknownFlag = cli(["run", "review", "--colour"]);
    await unknownFlag.expectExit(2);
    expect(unknownFlag.stderr).toContain("Unknown option '--colour'");
    expect(unknownFlag.stderr).toContain("Usage: switchboard run <assistant>");
  });
});

/** The thread's pending interrupt ids, from the hub's HTTP API. */
async function pendingIds(url: string, threadId: string): Promise<string[]> {
  const response = await fetch(`${url}/threads/${threadId}/state`);
  const body: unknown = await response.json();
  const interrupts = typeof body === "object" && body !== null && "interrupts" in body && Array.isArray(body.interrupts) ? body.interrupts : [];
  return interrupts.flatMap((i: unknown) => (typeof i === "object" && i !== null && "id" in i && typeof i.id === "string" ? [i.id] : []));
}
