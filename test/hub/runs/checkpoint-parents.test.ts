/**
 * docs/PROTOCOL.md, `checkpoints`: `{ id, parent_id, step, source }`. Every
 * event carries `parent_id` — the checkpoint it follows — except a thread's
 * very first one (the spec's `parent_id?`), and each names the previous
 * event's id, across runs and resumes too (issue 14 item 18).
 */
import { describe, expect, it } from "vitest";
import { ALL_CHANNELS, TestSocket, WAIT, isRootLifecycle, interruptIdsOf, testHub, wsUrl } from "../../support/hub.ts";
import { vi } from "vitest";

describe("checkpoints events", () => {
  it("carry parent_id, except the thread's first; each follows the one before, across the resume", async () => {
    const hub = await testHub();
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-cp/stream/events"));
    await socket.subscribe({ channels: ALL_CHANNELS });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "a" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const [id] = interruptIdsOf(socket.events);
    await socket.request("input.respond", { namespace: [], interrupt_id: id, response: { approve: true } });
    await socket.waitForEvent(isRootLifecycle("completed"));
    const checkpoints = socket.events.filter((e) => e.method === "checkpoints" && e.params.namespace.length === 0).map((e) => e.params.data as Record<string, unknown>);
    expect(checkpoints.length).toBeGreaterThan(3);
    expect(checkpoints[0]).not.toHaveProperty("parent_id");
    for (const cp of checkpoints.slice(1)) expect(Object.keys(cp)).toContain("parent_id");
    for (let i = 1; i < checkpoints.length; i++) expect(checkpoints[i]?.["parent_id"], `checkpoint ${i}`).toBe(checkpoints[i - 1]?.["id"]);
    socket.expectValidFrames();
    void vi;
    void WAIT;
  });

  it("one checkpoint, on every surface: state.get's checkpoint.id is REST's checkpoint_id (LangGraph's shape) and forks", async () => {
    const hub = await testHub();
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-cpref/stream/events"));
    await socket.subscribe({ channels: ["lifecycle", "checkpoints"] });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "a" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const got = await socket.request("state.get", { namespace: [] });
    const viaSocket = got.type === "success" ? (got.result["checkpoint"] as { id: string }) : undefined;
    expect(viaSocket).toEqual({ id: expect.any(String) });
    const state = (await (await fetch(`${hub.url}/threads/t-cpref/state`)).json()) as { checkpoint: { checkpoint_id: string } };
    expect(state.checkpoint.checkpoint_id).toBe(viaSocket?.id);
    const lastEvent = socket.events.filter((e) => e.method === "checkpoints" && e.params.namespace.length === 0).at(-1);
    expect((lastEvent?.params.data as { id: string }).id).toBe(viaSocket?.id);
    // The id forks as state.fork's checkpoint_id (the parameter's name in the spec).
    expect(await socket.request("state.fork", { checkpoint_id: viaSocket?.id, input: null })).toMatchObject({ type: "success" });
  });
});
