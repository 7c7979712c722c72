/** Thread tests of the hub store conformance suite (see conformance.ts). */
import { expect, it } from "vitest";
import { HubRecordExistsError } from "../../../../hub/runs/index.ts";
import type { HubStore } from "../../../../hub/runs/store.ts";
import { expectIso, newRun, newThread } from "./records.ts";

export function threadTests(store: () => HubStore): void {
  it("creates a thread stamped once and gets it back", async () => {
    const created = await store().createThread(newThread("t1", { metadata: { title: "Review" } }));
    expect(created).toEqual({
      threadId: "t1",
      tenant: "acme",
      assistantId: null,
      status: "idle",
      metadata: { title: "Review" },
      createdAt: created.createdAt,
      updatedAt: created.createdAt,
    });
    expectIso(created.createdAt);
    expect(await store().getThread("t1", "acme")).toEqual(created);
  });

  it("stores only the port's fields, whatever else the argument carries", async () => {
    const extra = { ...newThread("t1"), createdAt: "1999-01-01T00:00:00.000Z", other: 1 };
    const created = await store().createThread(extra);
    expect(created.createdAt).not.toBe(extra.createdAt);
    expect(Object.keys(created).sort()).toEqual(
      ["assistantId", "createdAt", "metadata", "status", "tenant", "threadId", "updatedAt"],
    );
  });

  it("refuses a second thread with the same id, also from another tenant", async () => {
    const first = await store().createThread(newThread("t1"));
    for (const tenant of ["acme", "globex"]) {
      const error = await store().createThread(newThread("t1", { tenant, status: "busy" })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HubRecordExistsError);
      expect(error).toMatchObject({ code: "HUB_RECORD_EXISTS", kind: "thread", id: "t1" });
    }
    expect(await store().getThread("t1", "acme")).toEqual(first);
    expect(await store().getThread("t1", "globex")).toBeUndefined();
  });

  it("answers undefined or false for unknown thread ids", async () => {
    expect(await store().getThread("nope", "acme")).toBeUndefined();
    expect(await store().updateThread("nope", { status: "busy" })).toBeUndefined();
    expect(await store().deleteThread("nope", "acme")).toBe(false);
    expect(await store().listThreads("acme")).toEqual([]);
  });

  it("never shows or deletes a thread for another tenant", async () => {
    const mine = await store().createThread(newThread("t1", { tenant: "acme" }));
    await store().createThread(newThread("t2", { tenant: "globex" }));
    expect(await store().getThread("t1", "globex")).toBeUndefined();
    expect(await store().getThread("t1", "")).toBeUndefined();
    expect(await store().deleteThread("t1", "globex")).toBe(false);
    expect((await store().listThreads("globex")).map((t) => t.threadId)).toEqual(["t2"]);
    expect((await store().listThreads("globex", { status: "idle" })).map((t) => t.threadId)).toEqual(["t2"]);
    expect(await store().listThreads("acme")).toEqual([mine]);
    expect(await store().getThread("t1", "acme")).toEqual(mine);
  });

  it("updates status, assistantId and metadata, keeps omitted fields and bumps updatedAt", async () => {
    const created = await store().createThread(newThread("t1", { metadata: { a: 1, b: 2 } }));
    const busy = await store().updateThread("t1", { status: "busy", assistantId: "agent" });
    expect(busy).toEqual({ ...created, status: "busy", assistantId: "agent", updatedAt: busy?.updatedAt });
    expect(busy!.updatedAt > created.updatedAt).toBe(true);
    expectIso(busy!.updatedAt);

    // Metadata is replaced, not merged; null clears the assistant.
    const replaced = await store().updateThread("t1", { metadata: { c: 3 }, assistantId: null });
    expect(replaced).toMatchObject({ status: "busy", assistantId: null, metadata: { c: 3 } });
    expect(replaced!.updatedAt > busy!.updatedAt).toBe(true);

    const touched = await store().updateThread("t1", {});
    expect(touched).toEqual({ ...replaced, updatedAt: touched?.updatedAt });
    expect(touched!.updatedAt > replaced!.updatedAt).toBe(true);
    expect(touched!.createdAt).toBe(created.createdAt);
    expect(await store().getThread("t1", "acme")).toEqual(touched);
  });

  it("lists a tenant's threads newest first, by status, with limit and offset", async () => {
    const statuses = ["idle", "busy", "idle", "error", "idle", "interrupted"] as const;
    for (const [i, status] of statuses.entries()) await store().createThread(newThread(`t${i}`, { status }));
    const ids = async (options?: Parameters<HubStore["listThreads"]>[1]): Promise<string[]> =>
      (await store().listThreads("acme", options)).map((t) => t.threadId);

    expect(await ids()).toEqual(["t5", "t4", "t3", "t2", "t1", "t0"]);
    expect(await ids({ status: "idle" })).toEqual(["t4", "t2", "t0"]);
    expect(await ids({ status: "busy" })).toEqual(["t1"]);
    expect(await ids({ limit: 2 })).toEqual(["t5", "t4"]);
    expect(await ids({ limit: 2, offset: 2 })).toEqual(["t3", "t2"]);
    expect(await ids({ offset: 4 })).toEqual(["t1", "t0"]);
    expect(await ids({ offset: 6 })).toEqual([]);
    expect(await ids({ limit: 0 })).toEqual([]);
    expect(await ids({ status: "idle", limit: 1, offset: 1 })).toEqual(["t2"]);
    // Order is by creation: updating an old thread does not move it.
    await store().updateThread("t0", { status: "busy" });
    expect(await ids({ status: "busy" })).toEqual(["t1", "t0"]);
  });

  it("rejects a negative or fractional limit or offset", async () => {
    for (const options of [{ limit: -1 }, { limit: 1.5 }, { offset: -1 }, { limit: Number.NaN }]) {
      await expect(store().listThreads("acme", options)).rejects.toBeInstanceOf(RangeError);
    }
    await expect(store().listRuns("t1", { limit: -1 })).rejects.toBeInstanceOf(RangeError);
  });

  it("lists idle threads of every tenant, least recently updated first, never busy ones", async () => {
    await store().createThread(newThread("old", { tenant: "acme" }));
    await store().createThread(newThread("busy", { tenant: "acme", status: "busy" }));
    await store().createThread(newThread("other", { tenant: "globex", status: "interrupted" }));
    const fresh = await store().createThread(newThread("fresh", { tenant: "acme" }));
    // Touching "old" makes it the most recently updated.
    const touched = await store().updateThread("old", { metadata: { touched: true } });
    const ids = async (before: string, limit = 10) => (await store().listIdleThreads(before, limit)).map((t) => t.threadId);
    expect(await ids(fresh.createdAt)).toEqual(["other"]);
    expect(await ids(touched!.updatedAt)).toEqual(["other", "fresh"]);
    expect(await ids("9999-01-01T00:00:00.000Z")).toEqual(["other", "fresh", "old"]);
    expect(await ids("9999-01-01T00:00:00.000Z", 1)).toEqual(["other"]);
    expect(await ids("2000-01-01T00:00:00.000Z")).toEqual([]);
    await expect(store().listIdleThreads("9999-01-01T00:00:00.000Z", -1)).rejects.toThrow(RangeError);
  });

  it("deletes a thread once, with its runs, and leaves other threads' runs", async () => {
    await store().createThread(newThread("t1"));
    await store().createThread(newThread("t2"));
    await store().createRun(newRun("r1", "t1"));
    await store().createRun(newRun("r2", "t1", { status: "running" }));
    const kept = await store().createRun(newRun("r3", "t2"));

    expect(await store().deleteThread("t1", "acme")).toBe(true);
    expect(await store().getThread("t1", "acme")).toBeUndefined();
    expect(await store().deleteThread("t1", "acme")).toBe(false);
    expect(await store().getRun("r1")).toBeUndefined();
    expect(await store().listRuns("t1")).toEqual([]);
    expect(await store().listUnfinishedRuns()).toEqual([kept]);
    expect((await store().countRunsByStatus()).pending).toBe(1);
    expect((await store().listThreads("acme")).map((t) => t.threadId)).toEqual(["t2"]);
  });
}
