/**
 * What a hub process killed with kill -9 leaves behind, checked against real
 * processes on one SQLite data dir (issue 14, items 1 and 2):
 * - an answer accepted before the crash, whose resumed run had not finished,
 *   is applied exactly once when the hub starts again — without answering again;
 * - event seqs never repeat after a restart, even for a thread whose only run
 *   failed before anything was saved.
 */
import { afterEach, describe, expect, it } from "vitest";
import { HubProcess } from "../../support/hub-process.ts";
import { TestSocket, interruptIdsOf, isRootLifecycle, tempDataDir } from "../../support/hub.ts";

const started: HubProcess[] = [];
async function hub(env: Record<string, string>): Promise<HubProcess> {
  const node = await HubProcess.start({ entry: "child", env });
  started.push(node);
  return node;
}
afterEach(async () => {
  for (const p of started.splice(0)) await p.kill();
});

describe("a hub killed with kill -9", () => {
  // "review": killed before the resumed node returned (the checkpoint still waits on the
  // question); "finalize": killed in the next node (the checkpoint holds the answer).
  it.each(["review", "finalize"])("applies an accepted answer exactly once after the restart (killed in %s)", { timeout: 60_000 }, async (gate) => {
    const dataDir = tempDataDir();
    const first = await hub({ SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_TEST_GATE: gate });
    const socket = await TestSocket.open(`${first.wsUrl}/threads/t-answer/stream/events`);
    await socket.subscribe({ channels: ["lifecycle", "input", "values"] });
    await socket.request("run.start", { assistant_id: "gated", input: { topic: "crash" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const [interruptId] = interruptIdsOf(socket.events);
    const answered = await socket.request("input.respond", { namespace: [], interrupt_id: interruptId, response: "approve", update: { note: "edited" } });
    expect(answered).toMatchObject({ type: "success", result: { resumed: true } });
    // The resumed run is in flight (its finalize waits on the gate) when the process dies.
    const resumeRunId = answered.type === "success" ? answered.result["run_id"] : undefined;
    await socket.waitForEvent((e) => e.method === "lifecycle" && e.params.data.event === "running" && e.run_id === resumeRunId, "the resumed run running");
    await first.kill();
    await socket.close();

    const second = await hub({ SWITCHBOARD_DATA_DIR: dataDir });
    const after = await TestSocket.open(`${second.wsUrl}/threads/t-answer/stream/events`);
    await after.subscribe({ channels: ["lifecycle", "values"] });
    await after.waitForEvent(isRootLifecycle("completed"), "the resumed run completing");
    const state = (await (await fetch(`${second.url}/threads/t-answer/state`)).json()) as Record<string, unknown>;
    // The answer and its edit, applied once: no question left, finalize ran once.
    expect(state).toMatchObject({ values: { decision: "approve", note: "edited", finalize_calls: 1 }, interrupts: [] });
    const item = (await (await fetch(`${second.url}/reviews/${interruptId}`)).json()) as Record<string, unknown>;
    expect(item).toMatchObject({ status: "answered" });
    await after.close();
    await second.stop();

    // And only once: a third start finds nothing left to apply.
    const third = await hub({ SWITCHBOARD_DATA_DIR: dataDir });
    const again = (await (await fetch(`${third.url}/threads/t-answer/state`)).json()) as Record<string, unknown>;
    expect(again).toMatchObject({ values: { finalize_calls: 1 } });
    expect(third.lines.join("\n")).not.toContain("re-applied");
    await third.stop();
  });

  it("never reuses a seq after a restart, even for a thread whose first run failed before saving anything", { timeout: 60_000 }, async () => {
    const dataDir = tempDataDir();
    const first = await hub({ SWITCHBOARD_DATA_DIR: dataDir });
    const socket = await TestSocket.open(`${first.wsUrl}/threads/t-seq/stream/events`);
    await socket.subscribe({ channels: ["lifecycle"] });
    // The run fails before its first checkpoint.
    await socket.request("run.start", { assistant_id: "fails-early", input: { topic: "x" } });
    await socket.waitForEvent(isRootLifecycle("failed"));
    const before = socket.events.map((e) => e.seq ?? 0);
    await socket.close();
    await first.kill();

    const second = await hub({ SWITCHBOARD_DATA_DIR: dataDir });
    const after = await TestSocket.open(`${second.wsUrl}/threads/t-seq/stream/events`);
    await after.subscribe({ channels: ["lifecycle"] });
    await after.request("run.start", { assistant_id: "fails-early", input: { topic: "y" } });
    await after.waitForEvent(isRootLifecycle("failed"));
    const seqs = after.events.map((e) => e.seq ?? 0);
    expect(seqs.length).toBeGreaterThan(0);
    expect(Math.min(...seqs)).toBeGreaterThan(Math.max(...before));
    await after.close();
    await second.stop();
  });
});
