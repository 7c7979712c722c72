/**
 * `input.respond` with `update` and `goto` behaves as the engine's
 * Command({ resume, update, goto }) does (and LangGraph's): the answered node
 * runs again seeing the update, and the goto target runs in the same step.
 */
import { describe, expect, it } from "vitest";
import { END, START, StateGraph, interrupt, lastValue, reducer, type Checkpointer } from "../../../engine/index.ts";
import { ALL_CHANNELS, HUB_STORAGES, TestSocket, interruptIdsOf, isRootLifecycle, testHub, wsUrl } from "../../support/hub.ts";

/** `ask` asks and records what `note` it saw; `extra` is reached only by a reviewer's goto. */
function editAssistant(checkpointer: Checkpointer) {
  const graph = new StateGraph({ log: reducer((all: string[], more: string[]) => [...all, ...more], () => []), note: lastValue<string>() })
    .addNode("ask", (s) => ({ log: [`ask saw ${s.note ?? "-"}: ${interrupt<string>({ question: "ok?" })}`] }), { ends: ["extra"] })
    .addNode("extra", () => ({ log: ["extra"] }))
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .addEdge("extra", END)
    .compile({ checkpointer, name: "edit" });
  return [{ id: "edit", description: "Asks once; a reviewer may edit and route to extra.", graph }];
}

describe.each(HUB_STORAGES)("input.respond with update and goto ($name)", (storage) => {
  it("the answered node sees the update, and the goto target runs in the same step", async () => {
    const hub = await testHub({ ...storage.config(), assistants: editAssistant });
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-edit/stream/events"));
    await socket.subscribe({ channels: ALL_CHANNELS });
    const start = await socket.request("run.start", { assistant_id: "edit", input: { note: "first" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const [interruptId] = interruptIdsOf(socket.events);
    const before = socket.events.length;

    const respond = await socket.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "yes", update: { note: "edited" }, goto: "extra" });
    expect(respond).toMatchObject({ type: "success", result: { resumed: true } });
    await socket.waitForEvent(isRootLifecycle("completed"));
    const state = await socket.request("state.get", { namespace: [] });
    expect(state).toMatchObject({ type: "success", result: { values: { note: "edited", log: ["ask saw edited: yes", "extra"] } } });

    // One step for both: the resumed run writes a single loop checkpoint.
    const resumed = socket.events.slice(before);
    const loopCheckpoints = resumed.filter((e) => e.method === "checkpoints" && (e.params.data as { source?: string }).source === "loop");
    expect(loopCheckpoints).toHaveLength(1);
    expect(resumed.filter((e) => e.method === "updates").map((e) => (e.method === "updates" ? e.params.data.node : "")).sort()).toEqual(["ask", "extra"]);
    expect(start.type).toBe("success");
    socket.expectValidFrames();
  });
});
