/**
 * Run admission: `run.start` with input the graph would refuse is answered
 * `invalid_argument` (naming the key and the channels) before the thread, the
 * run or any event exists — not accepted with a run id and failed a moment later.
 */
import { describe, expect, it } from "vitest";
import { ALL_CHANNELS, HUB_STORAGES, TestSocket, isRootLifecycle, testHub, wsUrl } from "../../support/hub.ts";
import { internalsOf } from "../../../hub/hub.ts";

const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe.each(HUB_STORAGES)("run admission ($name)", (storage) => {
  it("run.start with an input key that is not a state channel is invalid_argument naming the key and the channels; no thread, run or record is created", async () => {
    const hub = await testHub(storage.config());
    const res = await post(`${hub.url}/threads/t-admit/commands`, { id: 1, method: "run.start", params: { assistant_id: "parallel-review", input: { topic: "x" } } });
    expect(res.status).toBe(200); // POST /commands answers every command with 200 (PROTOCOL.md)
    const body = (await res.json()) as { type: string; error: string; message: string; details?: Record<string, unknown> };
    expect(body).toMatchObject({ type: "error", id: 1, error: "invalid_argument", details: { key: "topic", channels: ["answers", "joined"] } });
    expect(body.message).toContain('"topic"');
    expect(body.message).toContain("answers, joined");
    expect(await internalsOf(hub).store.getThread("t-admit", "default")).toBeUndefined();
    expect(await internalsOf(hub).store.listRuns("t-admit")).toEqual([]);
    expect(internalsOf(hub).logs.get("t-admit")).toBeUndefined(); // no event log: nothing was published
  });

  it("on a thread a client watches, the refused start publishes nothing; a valid start then runs as the only run", async () => {
    const hub = await testHub(storage.config());
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-watch/stream/events"));
    await socket.subscribe({ channels: ALL_CHANNELS });
    const refused = await socket.request("run.start", { assistant_id: "review", input: { topic: "hubs", nope: 1 } });
    expect(refused).toMatchObject({ type: "error", error: "invalid_argument", details: { key: "nope" } });
    const started = await socket.request("run.start", { assistant_id: "review", input: { topic: "hubs" } });
    expect(started.type).toBe("success");
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const runIds = new Set(socket.events.flatMap((e) => (e.method === "lifecycle" && e.run_id !== undefined ? [e.run_id] : [])));
    expect([...runIds]).toEqual([started.type === "success" ? started.result["run_id"] : undefined]);
    expect(await internalsOf(hub).store.listRuns("t-watch")).toHaveLength(1);
    socket.expectValidFrames();
  });

  it("on an interrupted thread the input is an answer, not state: it is not checked as state", async () => {
    const hub = await testHub(storage.config());
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-answer/stream/events"));
    await socket.subscribe({ channels: ALL_CHANNELS });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "hubs" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    // The review demo's answer is free-form: an object whose keys are no channels is still an answer.
    const answered = await socket.request("run.start", { assistant_id: "review", input: { verdict: "approve" } });
    expect(answered).toMatchObject({ type: "success", result: { resumed: true } });
    await socket.waitForEvent(isRootLifecycle("completed"));
  });
});
