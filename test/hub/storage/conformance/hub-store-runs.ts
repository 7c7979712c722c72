/** Run tests of the hub store conformance suite (see conformance.ts). */
import { expect, it } from "vitest";
import { HubRecordExistsError, RUN_STATUSES } from "../../../../hub/runs/index.ts";
import type { HubStore, RunStatus } from "../../../../hub/runs/store.ts";
import { expectIso, newRun, newThread } from "./records.ts";

const FINAL_STATUSES = ["completed", "failed", "cancelled", "interrupted", "abandoned"] as const satisfies RunStatus[];

export function runTests(store: () => HubStore): void {
  it("creates a run pending, without error or stamps, and gets it back", async () => {
    await store().createThread(newThread("t1"));
    const created = await store().createRun(newRun("r1", "t1"));
    expect(created).toEqual({
      ...newRun("r1", "t1"),
      error: null,
      nodeId: null,
      createdAt: created.createdAt,
      startedAt: null,
      endedAt: null,
    });
    expectIso(created.createdAt);
    expect(await store().getRun("r1")).toEqual(created);
  });

  it("refuses a second run with the same id", async () => {
    const first = await store().createRun(newRun("r1", "t1"));
    const error = await store().createRun(newRun("r1", "t2", { status: "running" })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubRecordExistsError);
    expect(error).toMatchObject({ code: "HUB_RECORD_EXISTS", kind: "run", id: "r1" });
    expect(await store().getRun("r1")).toEqual(first);
  });

  it("answers undefined or nothing for unknown run and thread ids", async () => {
    expect(await store().getRun("nope")).toBeUndefined();
    expect(await store().updateRun("nope", { status: "running" })).toBeUndefined();
    expect(await store().listRuns("nope")).toEqual([]);
    expect(await store().listUnfinishedRuns()).toEqual([]);
  });

  it("stamps startedAt the first time a run is running", async () => {
    const created = await store().createRun(newRun("r1", "t1"));
    const running = await store().updateRun("r1", { status: "running" });
    expect(running).toEqual({ ...created, status: "running", startedAt: running?.startedAt });
    expectIso(running?.startedAt);
    expect(running!.startedAt! > created.createdAt).toBe(true);
    const again = await store().updateRun("r1", { status: "running" });
    expect(again).toEqual(running);
    expect(await store().getRun("r1")).toEqual(running);
  });

  it("stamps startedAt at once for a run created running", async () => {
    const created = await store().createRun(newRun("r1", "t1", { status: "running" }));
    expect(created.startedAt).toBe(created.createdAt);
    expect(created.endedAt).toBeNull();
  });

  it.each(FINAL_STATUSES)("stamps endedAt on %s and keeps startedAt", async (status) => {
    await store().createRun(newRun("r1", "t1"));
    const running = await store().updateRun("r1", { status: "running" });
    const ended = await store().updateRun("r1", { status });
    expect(ended).toEqual({ ...running, status, endedAt: ended?.endedAt });
    expectIso(ended?.endedAt);
    expect(ended!.endedAt! > running!.startedAt!).toBe(true);
    expect(await store().getRun("r1")).toEqual(ended);
    // A later final status keeps the first endedAt: that is when the run ended.
    const abandoned = await store().updateRun("r1", { status: "abandoned" });
    expect(abandoned?.endedAt).toBe(ended?.endedAt);
  });

  it("leaves startedAt null for a run cancelled before it ran", async () => {
    await store().createRun(newRun("r1", "t1"));
    const cancelled = await store().updateRun("r1", { status: "cancelled" });
    expect(cancelled).toMatchObject({ status: "cancelled", startedAt: null });
    expectIso(cancelled?.endedAt);
  });

  it("keeps the node that ran a run: set at creation or on a later status, kept when omitted and after the run ends", async () => {
    await store().createThread(newThread("t1"));
    expect((await store().createRun({ ...newRun("r1", "t1"), status: "running", nodeId: "node-a" })).nodeId).toBe("node-a");
    expect((await store().updateRun("r1", { status: "running" }))?.nodeId).toBe("node-a");
    // Taken over: the new node is named; the end keeps it.
    expect((await store().updateRun("r1", { status: "running", nodeId: "node-b" }))?.nodeId).toBe("node-b");
    expect((await store().updateRun("r1", { status: "completed" }))?.nodeId).toBe("node-b");
    expect((await store().getRun("r1"))?.nodeId).toBe("node-b");
    expect((await store().listRuns("t1"))[0]?.nodeId).toBe("node-b");
    // Queued: no node until it runs.
    await store().createRun(newRun("r2", "t1"));
    expect((await store().getRun("r2"))?.nodeId).toBeNull();
    expect((await store().updateRun("r2", { status: "running", nodeId: "node-c" }))?.nodeId).toBe("node-c");
    expect((await store().listUnfinishedRuns()).map((r) => r.nodeId)).toEqual(["node-c"]);
  });

  it("sets the error, keeps it when omitted and clears it with null", async () => {
    await store().createRun(newRun("r1", "t1"));
    expect((await store().updateRun("r1", { status: "failed", error: "boom: ✗" }))?.error).toBe("boom: ✗");
    expect((await store().updateRun("r1", { status: "failed" }))?.error).toBe("boom: ✗");
    expect((await store().updateRun("r1", { status: "failed", error: "" }))?.error).toBe("");
    expect((await store().updateRun("r1", { status: "failed", error: null }))?.error).toBeNull();
    expect((await store().getRun("r1"))?.error).toBeNull();
  });

  it("lists a thread's runs newest first, by status, with limit", async () => {
    const statuses = ["completed", "interrupted", "completed", "failed", "running"] as const;
    for (const [i, status] of statuses.entries()) {
      await store().createRun(newRun(`r${i}`, "t1"));
      await store().updateRun(`r${i}`, { status });
    }
    await store().createRun(newRun("other", "t2"));
    const ids = async (options?: Parameters<HubStore["listRuns"]>[1]): Promise<string[]> =>
      (await store().listRuns("t1", options)).map((r) => r.runId);

    expect(await ids()).toEqual(["r4", "r3", "r2", "r1", "r0"]);
    expect(await ids({ status: "completed" })).toEqual(["r2", "r0"]);
    expect(await ids({ status: "pending" })).toEqual([]);
    expect(await ids({ limit: 2 })).toEqual(["r4", "r3"]);
    expect(await ids({ status: "completed", limit: 1 })).toEqual(["r2"]);
    expect(await ids({ limit: 0 })).toEqual([]);
    // Order is by creation: updating an old run does not move it.
    await store().updateRun("r0", { status: "abandoned" });
    expect((await ids())[4]).toBe("r0");
  });

  it("lists pending and running runs of every thread and tenant, oldest first", async () => {
    for (const [runId, status] of [
      ["a", "running"],
      ["b", "completed"],
      ["c", "pending"],
      ["d", "interrupted"],
      ["e", "pending"],
    ] as const) {
      await store().createRun(newRun(runId, `thread-${runId}`, { status, tenant: runId === "c" ? "globex" : "acme" }));
    }
    expect((await store().listUnfinishedRuns()).map((r) => r.runId)).toEqual(["a", "c", "e"]);
    await store().updateRun("a", { status: "abandoned" });
    await store().updateRun("e", { status: "running" });
    expect((await store().listUnfinishedRuns()).map((r) => [r.runId, r.status])).toEqual([
      ["c", "pending"],
      ["e", "running"],
    ]);
  });

  it("deletes one run's record and nothing else", async () => {
    await store().createRun(newRun("r1", "t1", { status: "running" }));
    const kept = await store().createRun(newRun("r2", "t1"));
    expect(await store().deleteRun("r1")).toBe(true);
    expect(await store().deleteRun("r1")).toBe(false);
    expect(await store().deleteRun("nope")).toBe(false);
    expect(await store().getRun("r1")).toBeUndefined();
    expect(await store().listRuns("t1")).toEqual([kept]);
    expect(await store().listUnfinishedRuns()).toEqual([kept]);
    expect((await store().countRunsByStatus()).running).toBe(0);
  });

  it("counts runs by status, every status present even at zero", async () => {
    const zeros = Object.fromEntries(RUN_STATUSES.map((s) => [s, 0]));
    expect(await store().countRunsByStatus()).toEqual(zeros);
    expect(Object.keys(zeros).sort()).toEqual(
      ["abandoned", "cancelled", "completed", "failed", "interrupted", "pending", "running"],
    );

    await store().createRun(newRun("r1", "t1"));
    await store().createRun(newRun("r2", "t1"));
    await store().createRun(newRun("r3", "t2", { tenant: "globex" }));
    await store().createRun(newRun("r4", "t2", { tenant: "globex" }));
    await store().updateRun("r2", { status: "running" });
    await store().updateRun("r3", { status: "failed" });
    expect(await store().countRunsByStatus()).toEqual({ ...zeros, pending: 2, running: 1, failed: 1 });
  });
}
