/**
 * A hub restart on the same data directory loses nothing durable: threads,
 * checkpoints and pending interrupts survive, and a run left in flight by a
 * dead process is marked abandoned and its thread can be resumed.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DB_FILE_NAME } from "../../../hub/config.ts";
import { SqliteHubStore } from "../../../hub/storage/sqlite/index.ts";
import { ALL_CHANNELS, TestSocket, interruptIdsOf, isRootLifecycle, tempDataDir, testHub, wsUrl } from "../../support/hub.ts";
import { internalsOf } from "../../../hub/hub.ts";

describe("restart", () => {
  it("keeps threads, checkpoints and pending interrupts; the question can be answered after", async () => {
    const dataDir = tempDataDir();
    const first = await testHub({ dataDir });
    const socket = await TestSocket.open(wsUrl(first, "/threads/t-durable/stream/events"));
    await socket.subscribe({ channels: ALL_CHANNELS });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "durability" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const [interruptId] = interruptIdsOf(socket.events);
    const lastSeq = socket.events.at(-1)?.seq ?? 0;
    await socket.close();
    await first.close();

    const second = await testHub({ dataDir });
    const thread = await (await fetch(`${second.url}/threads/t-durable`)).json();
    expect(thread).toMatchObject({ thread_id: "t-durable", status: "interrupted" });
    expect(Object.values((thread as { interrupts: Record<string, unknown[]> }).interrupts).flat()).toEqual([{ id: interruptId, value: expect.objectContaining({ kind: "review" }) }]);
    const history = (await (await fetch(`${second.url}/threads/t-durable/history?limit=50`)).json()) as unknown[];
    expect(history.length).toBeGreaterThan(2);

    const again = await TestSocket.open(wsUrl(second, "/threads/t-durable/stream/events"));
    await again.subscribe({ channels: ["lifecycle", "input", "values"] });
    const asked = await again.waitForEvent((e) => e.method === "input.requested");
    expect(asked.method === "input.requested" && asked.params.data.interrupt_id).toBe(interruptId);
    await again.waitForEvent(isRootLifecycle("interrupted"));
    // Seqs after a restart never reuse the old ones (SDK clients dedupe by event_id).
    expect(asked.seq).toBeGreaterThan(lastSeq);

    await again.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "approve" });
    await again.waitForEvent(isRootLifecycle("completed"));
    const state = await (await fetch(`${second.url}/threads/t-durable/state`)).json();
    expect(state).toMatchObject({ values: { decision: "approve", finalize_calls: 1 }, interrupts: [] });
    again.expectValidFrames();
  });

  it("marks runs left running by a dead process abandoned; the thread can be resumed", async () => {
    const dataDir = tempDataDir();
    const first = await testHub({ dataDir, demoTokenDelayMs: 0 });
    const socket = await TestSocket.open(wsUrl(first, "/threads/t-crash/stream/events"));
    await socket.subscribe({ channels: ["lifecycle"] });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "crash" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    await socket.close();
    await first.close();

    // What a crash mid-run leaves behind: a run record still "running".
    const store = new SqliteHubStore(join(dataDir, DB_FILE_NAME));
    await store.createRun({ runId: "run-of-the-dead", threadId: "t-crash", tenant: "default", assistantId: "review", status: "running", startedBy: "dev", multitaskStrategy: "reject", input: null });
    await store.updateThread("t-crash", { status: "busy" });
    await store.close();

    const second = await testHub({ dataDir });
    expect(await internalsOf(second).store.getRun("run-of-the-dead")).toMatchObject({ status: "abandoned", error: expect.any(String) });
    expect(await internalsOf(second).store.getThread("t-crash", "default")).toMatchObject({ status: "interrupted" });

    const resumed = await TestSocket.open(wsUrl(second, "/threads/t-crash/stream/events"));
    await resumed.subscribe({ channels: ["lifecycle", "input"] });
    await resumed.waitForEvent((e) => e.method === "input.requested");
    // run.start on an interrupted thread resumes it, the input being the answer.
    expect(await resumed.request("run.start", { assistant_id: "review", input: "approve" })).toMatchObject({ type: "success" });
    await resumed.waitForEvent(isRootLifecycle("completed"));
    const state = await (await fetch(`${second.url}/threads/t-crash/state`)).json();
    expect(state).toMatchObject({ values: { decision: "approve", finalize_calls: 1 } });
  });

  it("a run stopped mid-flight by a shutdown is abandoned and continues with run.start(null)", async () => {
    const dataDir = tempDataDir();
    const first = await testHub({ dataDir, demoTokenDelayMs: 20 });
    const socket = await TestSocket.open(wsUrl(first, "/threads/t-midflight/stream/events"));
    await socket.subscribe({ channels: ["messages"] });
    const started = await socket.request("run.start", { assistant_id: "review", input: { topic: "mid-flight" } });
    await socket.waitForEvent((e) => e.method === "messages");
    await socket.close();
    await first.close();

    const second = await testHub({ dataDir, demoTokenDelayMs: 0 });
    const runId = started.type === "success" ? String(started.result["run_id"]) : "";
    expect(await internalsOf(second).store.getRun(runId)).toMatchObject({ status: "abandoned" });
    const resumed = await TestSocket.open(wsUrl(second, "/threads/t-midflight/stream/events"));
    await resumed.subscribe({ channels: ["lifecycle", "input", "values"] });
    expect(await resumed.request("run.start", { assistant_id: "review", input: null })).toMatchObject({ type: "success" });
    await resumed.waitForEvent(isRootLifecycle("interrupted"));
    const state = await (await fetch(`${second.url}/threads/t-midflight/state`)).json();
    expect(state).toMatchObject({ values: { topic: "mid-flight", draft: expect.stringContaining("Dear team") }, next: ["review"] });
  });
});
