/**
 * Subgraph events on the wire: namespaced events reach only subscriptions
 * whose namespace prefix and depth match, and an interrupt raised inside a
 * subgraph is answered through the root.
 */
import { describe, expect, it } from "vitest";
import { END, START, StateGraph, interrupt, lastValue, type Checkpointer } from "../../../engine/index.ts";
import type { Assistant } from "../../../hub/index.ts";
import { TestSocket, interruptIdsOf, isRootLifecycle, tempDataDir, testHub, wsUrl } from "../../support/hub.ts";

function nested(checkpointer: Checkpointer): Assistant {
  const child = new StateGraph({ topic: lastValue<string>(), approved: lastValue<boolean>() })
    .addNode("ask", () => ({ approved: interrupt<boolean>({ kind: "review", who: "inner" }) }))
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile({ name: "child" });
  const graph = new StateGraph({ topic: lastValue<string>(), approved: lastValue<boolean>(), done: lastValue<boolean>() })
    .addNode("sub", child)
    .addNode("finish", () => ({ done: true }))
    .addEdge(START, "sub")
    .addEdge("sub", "finish")
    .addEdge("finish", END)
    .compile({ checkpointer, name: "nested" });
  return { id: "nested", description: "test: a subgraph that asks", graph };
}

describe("subgraphs", () => {
  it("namespace and depth filters select events; a nested interrupt is answered from the root", async () => {
    const hub = await testHub({ assistants: (checkpointer) => [nested(checkpointer)] });
    const url = wsUrl(hub, "/threads/t-nested/stream/events");
    const [all, inner, root] = await Promise.all([TestSocket.open(url), TestSocket.open(url), TestSocket.open(url)]);
    await all.subscribe({ channels: ["lifecycle", "input", "updates"] });
    await inner.subscribe({ channels: ["lifecycle", "input", "updates"], namespaces: [["sub"]], depth: 0 });
    await root.subscribe({ channels: ["lifecycle", "input", "updates"], namespaces: [[]], depth: 0 });
    await all.request("run.start", { assistant_id: "nested", input: { topic: "x" } });
    await Promise.all([all, root].map((s) => s.waitForEvent(isRootLifecycle("interrupted"))));

    const asked = await inner.waitForEvent((e) => e.method === "input.requested");
    expect(asked.params.namespace).toHaveLength(1);
    expect(asked.params.namespace[0]).toMatch(/^sub:/);
    expect(inner.events.every((e) => e.params.namespace.length === 1 && e.params.namespace[0]!.startsWith("sub:"))).toBe(true);
    expect(root.events.every((e) => e.params.namespace.length === 0)).toBe(true);
    expect(all.events.length).toBe(inner.events.length + root.events.length);

    const [id] = interruptIdsOf(all.events);
    const reply = await all.request("input.respond", { namespace: asked.params.namespace, interrupt_id: id, response: true });
    expect(reply.type).toBe("success");
    await all.waitForEvent(isRootLifecycle("completed"));
    const state = await all.request("state.get", { namespace: [] });
    expect(state).toMatchObject({ type: "success", result: { values: { approved: true, done: true } } });
    for (const s of [all, inner, root]) s.expectValidFrames();
  });

  it("after a restart, a question asked inside a subgraph is replayed with its namespace and node", async () => {
    const dataDir = tempDataDir();
    const first = await testHub({ dataDir, assistants: (checkpointer) => [nested(checkpointer)] });
    const before = await TestSocket.open(wsUrl(first, "/threads/t-nested-restart/stream/events"));
    await before.subscribe({ channels: ["lifecycle", "input"] });
    await before.request("run.start", { assistant_id: "nested", input: { topic: "x" } });
    await before.waitForEvent(isRootLifecycle("interrupted"));
    const original = await before.waitForEvent((e) => e.method === "input.requested");
    expect(original.params.node).toBe("ask");
    await before.close();
    await first.close();

    const second = await testHub({ dataDir, assistants: (checkpointer) => [nested(checkpointer)] });
    const after = await TestSocket.open(wsUrl(second, "/threads/t-nested-restart/stream/events"));
    // A subscriber filtering on the subgraph's namespace still gets the question.
    await after.subscribe({ channels: ["input"], namespaces: [["sub"]] });
    const replayed = await after.waitForEvent((e) => e.method === "input.requested");
    expect(replayed.params.namespace).toEqual(original.params.namespace);
    expect(replayed.params.node).toBe("ask");
    expect(replayed.params.data).toEqual(original.params.data);
    const reply = await after.request("input.respond", { namespace: replayed.params.namespace, interrupt_id: interruptIdsOf([replayed])[0], response: true });
    expect(reply.type).toBe("success");
    after.expectValidFrames();
  });
});
