/**
 * The SDK against the real hub (startHub on port 0): projections end equal
 * to the hub's own state after runs with tokens, a tool call, a subgraph and
 * interrupts; a socket cut mid-stream loses and duplicates nothing.
 */
import { describe, expect, it, vi } from "vitest";
import { HubClientError, type ThreadHandle } from "../../client/index.ts";
import { humanMessage } from "../../engine/index.ts";
import { internalsOf } from "../../hub/hub.ts";
import { REPORT, WAIT, recordingClient, startTestHub } from "../support/client-hub.ts";

const hubModule: Record<string, unknown> = await import("../../hub/index.ts");
const hubReady = typeof hubModule["startHub"] === "function";

const REVIEW_DRAFT = typeof hubModule["REVIEW_DRAFT"] === "string" ? hubModule["REVIEW_DRAFT"] : "";

async function statusOf(thread: ThreadHandle, status: string): Promise<void> {
  await vi.waitFor(() => expect(thread.status.status).toBe(status), WAIT);
}

/** The hub's state without the channels it never streams (private ones). */
async function serverValues(thread: ThreadHandle): Promise<Record<string, unknown>> {
  const keys = Object.keys(thread.values ?? {});
  return thread.getState(keys);
}

describe.skipIf(!hubReady)("SDK against the real hub", () => {
  it("tokens, a tool call, a subgraph and its interrupt: projections match the hub", async () => {
    const hub = await startTestHub();
    const { client } = recordingClient(hub);
    const thread = client.thread("t-research");
    const { run_id } = await thread.run("research", { messages: [humanMessage("Weather?")] });
    expect(run_id).toEqual(expect.any(String));
    await statusOf(thread, "interrupted");

    const [pending] = thread.interrupts;
    expect(thread.interrupts).toHaveLength(1);
    expect(pending).toMatchObject({ node: "approve", status: "open", payload: { kind: "approve", question: "Publish the report?" } });
    expect(pending?.namespace).toEqual([expect.stringMatching(/^research:/)]);

    const agent = thread.messages.find((m) => m.node === "agent");
    expect(agent).toMatchObject({ namespace: [], status: "finished", text: "Let me search", toolCalls: [{ id: "call_1", name: "search", args: { q: "weather" }, done: true }] });
    expect(thread.tools).toEqual([expect.objectContaining({ tool_call_id: "call_1", tool_name: "search", node: "tools", status: "finished", input: { q: "weather" } })]);
    const report = thread.messages.find((m) => m.node === "write");
    expect(report).toMatchObject({ status: "finished", text: REPORT });
    expect(report?.namespace).toEqual(pending?.namespace);

    const tree = thread.tree;
    expect(tree).toMatchObject({ namespace: [], status: "interrupted" });
    expect(tree?.nodes.map((n) => [n.name, n.status])).toEqual([["agent", "completed"], ["tools", "completed"], ["research", "interrupted"]]);
    expect(tree?.children).toHaveLength(1);
    expect(tree?.children[0]).toMatchObject({ namespace: pending?.namespace, node: "research", status: "interrupted" });
    expect(tree?.children[0]?.nodes.map((n) => [n.name, n.status])).toEqual([["write", "completed"], ["approve", "interrupted"]]);

    if (!pending) throw new Error("no pending interrupt");
    await thread.respond(pending.interrupt_id, true);
    await statusOf(thread, "completed");
    expect(thread.interrupts).toEqual([]);
    expect(thread.resolved.at(-1)).toMatchObject({ interrupt_id: pending.interrupt_id, outcome: "answered", answered_by: { sub: "dev" } });
    expect(thread.values).toMatchObject({ report: REPORT, approved: true });
    expect(thread.values).toEqual(await serverValues(thread));
  });

  it("review: the streamed draft, the answer, and the final state", async () => {
    const hub = await startTestHub();
    const { client } = recordingClient(hub);
    const thread = client.thread("t-review");
    await thread.run("review", { topic: "the SDK" });
    await statusOf(thread, "interrupted");
    expect(thread.messages.map((m) => [m.node, m.text, m.status])).toEqual([["draft", REVIEW_DRAFT, "finished"]]);
    const [item] = thread.interrupts;
    if (!item) throw new Error("no pending interrupt");
    await thread.respond(item.interrupt_id, { approve: true });
    // A second answer to the same question loses, with a typed error.
    const late = await thread.respond(item.interrupt_id, { approve: false }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(HubClientError);
    expect(late).toMatchObject({ code: "already_answered", retryable: false, method: "input.respond" });
    await statusOf(thread, "completed");
    expect(thread.values).toMatchObject({ topic: "the SDK", draft: REVIEW_DRAFT, decision: { approve: true }, finalize_calls: 1 });
    expect(thread.values).toEqual(await serverValues(thread));
    expect(thread.interrupts).toEqual([]);
  });

  it("queue: a new subscriber's first list already shows the claimed item as claimed", async () => {
    const hub = await startTestHub();
    const { client } = recordingClient(hub);
    const thread = client.thread("t-queue-claim");
    await thread.run("review", { topic: "claims" });
    await statusOf(thread, "interrupted");
    const mine = client.queue("default");
    await mine.subscribe();
    await vi.waitFor(() => expect(mine.items).toHaveLength(1), WAIT);
    const [item] = mine.items;
    if (!item) throw new Error("no queue item");
    await mine.claim(item, 60_000);

    const { client: other } = recordingClient(hub);
    const theirs = other.queue("default");
    const lists: Array<Array<[string, string, string | undefined]>> = [];
    theirs.on("items", (items) => lists.push(items.map((i) => [i.interrupt_id, i.status, i.claimed_by?.sub])));
    await theirs.subscribe();
    await vi.waitFor(() => expect(lists.length).toBeGreaterThan(0), WAIT);
    // Never an unclaimed view of it in between: the snapshot applies as one.
    expect(lists).toEqual([[[item.interrupt_id, "claimed", "dev"]]]);
  });

  it("parallel-review: three interrupts answered in one batch", async () => {
    const hub = await startTestHub();
    const { client } = recordingClient(hub);
    const thread = client.thread("t-parallel");
    await thread.run("parallel-review", {});
    await statusOf(thread, "interrupted");
    const who = (payload: unknown): unknown => (typeof payload === "object" && payload !== null ? Reflect.get(payload, "who") : undefined);
    expect(thread.interrupts.map((i) => who(i.payload)).sort()).toEqual(["r1", "r2", "r3"]);
    // The node comes from input.requested or, when the hub leaves it out, from the task result.
    expect(thread.interrupts.map((i) => i.node).sort()).toEqual(["r1", "r2", "r3"]);
    await thread.respondMany(thread.interrupts.map((i) => ({ interruptId: i.interrupt_id, value: `ok from ${String(who(i.payload))}` })));
    await statusOf(thread, "completed");
    expect(thread.interrupts).toEqual([]);
    expect(thread.values).toMatchObject({ joined: true });
    const answers = thread.values?.["answers"];
    expect(Array.isArray(answers) ? answers.length : 0).toBe(3);
    expect(thread.values).toEqual(await serverValues(thread));
  });

  it("a view that subscribes, leaves and comes back (the web app's item pages) applies nothing twice", async () => {
    const hub = await startTestHub();
    const operator = recordingClient(hub).client.thread("t-revisit");
    await operator.run("parallel-review", {});
    await statusOf(operator, "interrupted");
    // The reviewer's client subscribes only while a page shows the thread (the run was someone else's).
    const thread = recordingClient(hub).client.thread("t-revisit");
    const channels = ["lifecycle", "values", "input", "tasks"] as const;
    const first = await thread.subscribe([...channels]);
    await vi.waitFor(() => expect(thread.interrupts).toHaveLength(3), WAIT);
    await first.unsubscribe();
    // Each answer from a page of its own: subscribe, answer, leave; the next page subscribes afresh.
    const resolvedLists: string[][] = [];
    thread.on("resolved", (list) => resolvedLists.push(list.map((r) => r.interrupt_id)));
    for (const question of [...thread.interrupts]) {
      const view = await thread.subscribe([...channels]);
      await thread.respond(question.interrupt_id, { approve: true });
      await vi.waitFor(() => expect(thread.resolved.map((r) => r.interrupt_id)).toContain(question.interrupt_id), WAIT);
      await view.unsubscribe();
    }
    const last = await thread.subscribe([...channels]);
    await statusOf(thread, "completed");
    const ids = thread.resolved.map((r) => r.interrupt_id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    // No answered question ever came back as pending, nor twice into the list.
    for (const list of resolvedLists) expect(new Set(list).size).toBe(list.length);
    await last.unsubscribe();
  });

  it("a socket cut mid-stream loses and duplicates nothing", async () => {
    const hub = await startTestHub({ tokenDelayMs: 8 });
    const watcher = recordingClient(hub).client.thread("t-cut");
    await watcher.subscribe();
    const { client, sockets } = recordingClient(hub);
    const thread = client.thread("t-cut");
    const seen: number[] = [];
    thread.on("event", (e) => {
      if (e.seq !== undefined) seen.push(e.seq);
    });
    const reference: number[] = [];
    watcher.on("event", (e) => {
      if (e.seq !== undefined) reference.push(e.seq);
    });
    await thread.run("review", { topic: "resilience" });
    await vi.waitFor(() => expect(thread.messages[0]?.text.length ?? 0).toBeGreaterThan(40), WAIT);
    const textAtCut = thread.messages[0]?.text ?? "";
    expect(thread.status.status).toBe("running");
    sockets[0]?.terminate();
    await statusOf(thread, "interrupted");
    await statusOf(watcher, "interrupted");

    expect(sockets.length).toBeGreaterThanOrEqual(2);
    expect(textAtCut.length).toBeLessThan(REVIEW_DRAFT.length);
    expect(thread.messages.map((m) => [m.text, m.status])).toEqual([[REVIEW_DRAFT, "finished"]]);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(reference);
    expect(thread.state.values).toEqual(watcher.state.values);
    expect(thread.interrupts.map((i) => i.interrupt_id)).toEqual(watcher.interrupts.map((i) => i.interrupt_id));
  });

  it("threads(): the tenant's threads with their status, live, and the list again after a reconnect", async () => {
    const hub = await startTestHub();
    const { client, sockets } = recordingClient(hub);
    const operator = recordingClient(hub).client;
    await operator.thread("t-list-old").run("review", { topic: "old" });
    await statusOf(operator.thread("t-list-old"), "interrupted");
    const list = client.threads();
    await list.subscribe(10);
    const statusOfThread = (id: string) => list.threads.find((t) => t.thread_id === id)?.status;
    expect(list.threads.map((t) => [t.thread_id, t.status])).toEqual([["t-list-old", "interrupted"]]);

    const seen: string[] = [];
    list.on("threads", (threads) => {
      const s = threads.find((t) => t.thread_id === "t-list-new")?.status;
      if (s !== undefined && s !== seen.at(-1)) seen.push(s);
    });
    const fresh = operator.thread("t-list-new");
    await fresh.run("review", { topic: "new" });
    await vi.waitFor(() => expect(statusOfThread("t-list-new")).toBe("interrupted"), WAIT);
    expect(seen).toEqual(expect.arrayContaining(["busy", "interrupted"]));
    expect(list.threads[0]?.thread_id).toBe("t-list-new"); // newest first

    // Cut the socket; the answer lands while the list's client is away.
    await statusOf(fresh, "interrupted");
    sockets[0]?.terminate();
    await fresh.respond(fresh.interrupts[0]?.interrupt_id ?? "", { approve: true });
    await statusOf(fresh, "completed");
    await vi.waitFor(() => expect(statusOfThread("t-list-new")).toBe("idle"), WAIT);
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    await list.close();
    expect(list.listenerCount).toBe(0);
    await vi.waitFor(() => expect(internalsOf(hub).threadWatch.size).toBe(0), WAIT);

    // Shown and left at once (React's strict mode does it): the first subscription does not linger on the hub.
    const again = client.threads();
    const first = again.subscribe();
    await again.unsubscribe();
    await again.subscribe();
    await first;
    await vi.waitFor(() => expect(internalsOf(hub).threadWatch.size).toBe(1), WAIT);
    expect(again.threads.map((t) => t.thread_id)).toEqual(["t-list-new", "t-list-old"]);
    await again.unsubscribe();
  });
});
