/**
 * The hub store conformance suite: every implementation of the port in
 * hub/store/types.ts runs these same tests from a few-line test file. Thread
 * and run tests live in conformance-threads.ts and conformance-runs.ts; the
 * rules shared by both (JSON values, copies, the clock) are here.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { HubStore, RunRecord } from "../../../../hub/runs/store.ts";
import { runTests } from "./hub-store-runs.ts";
import { threadTests } from "./hub-store-threads.ts";
import { newRun, newThread } from "./records.ts";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export interface HubStoreFixture {
  store: HubStore;
  dispose(): Promise<void>;
}

/** Falsy, empty and non-ASCII values, including an escaped NUL and a lone surrogate. */
const ODD_VALUES: unknown[] = [0, "", false, null, [], {}, "✓ 値 مرحبا e\u0301 🚀", "\u0000", "\ud83d"];

const ODD_METADATA: Record<string, unknown> = {
  zero: 0,
  empty: "",
  no: false,
  nothing: null,
  list: [0, "", false, null, {}],
  nested: { "": "", deep: { deeper: [[]] } },
  "🔑 キー": "値 ✓ مرحبا 🧵",
};

export function describeHubStoreConformance(name: string, make: () => Promise<HubStoreFixture>): void {
  describe(`hub store conformance: ${name}`, () => {
    let fixture: HubStoreFixture;
    const store = (): HubStore => fixture.store;

    beforeEach(async () => {
      fixture = await make();
    });
    afterEach(async () => {
      vi.useRealTimers();
      await fixture.dispose();
    });

    describe("threads", () => threadTests(store));
    describe("runs", () => runTests(store));

    it("round-trips falsy and unicode metadata, ids and tenants", async () => {
      const thread = newThread("スレッド-🧵", { tenant: "租户-ü", metadata: ODD_METADATA });
      const created = await store().createThread(thread);
      expect(created.metadata).toEqual(ODD_METADATA);
      expect(await store().getThread("スレッド-🧵", "租户-ü")).toEqual(created);
      expect(await store().listThreads("租户-ü")).toEqual([created]);
      expect(await store().getThread("スレッド-🧵", "租户-u")).toBeUndefined();
      const empty = await store().updateThread("スレッド-🧵", { metadata: {} });
      expect(empty?.metadata).toEqual({});
    });

    it.each(ODD_VALUES)("round-trips the run input %j", async (input) => {
      const created = await store().createRun(newRun("r1", "t1", { input }));
      expect(created.input).toEqual(input);
      expect((await store().getRun("r1"))?.input).toEqual(input);
      expect((await store().listRuns("t1"))[0]?.input).toEqual(input);
    });

    it("stores values with JSON semantics", async () => {
      const metadata = { gone: undefined, when: new Date(0), list: [undefined] };
      const created = await store().createThread(newThread("t1", { metadata }));
      const expected = { when: "1970-01-01T00:00:00.000Z", list: [null] };
      expect(created.metadata).toStrictEqual(expected);
      expect((await store().getThread("t1", "acme"))?.metadata).toStrictEqual(expected);
      // A resume has no input: it is stored as null.
      const run = await store().createRun(newRun("r1", "t1", { input: undefined }));
      expect(run.input).toBeNull();
      expect((await store().getRun("r1"))?.input).toBeNull();
    });

    it("hands out thread copies: mutating arguments or results does not change the store", async () => {
      const tags = ["a"];
      const thread = await store().createThread(newThread("t1", { metadata: { tags } }));
      tags.push("argument");
      thread.status = "error";
      thread.metadata["added"] = true;
      const got = await store().getThread("t1", "acme");
      const gotTags = got?.metadata["tags"];
      if (Array.isArray(gotTags)) gotTags.push("result");
      expect((await store().getThread("t1", "acme"))?.metadata).toStrictEqual({ tags: ["a"] });
      const listed = await store().listThreads("acme");
      listed[0]!.metadata["listed"] = 1;
      expect(await store().getThread("t1", "acme")).toEqual({ ...thread, status: "idle", metadata: { tags: ["a"] } });

      const patch = { note: { text: "x" } };
      const updated = await store().updateThread("t1", { metadata: patch });
      patch.note.text = "argument";
      updated!.metadata["added"] = true;
      expect((await store().getThread("t1", "acme"))?.metadata).toEqual({ note: { text: "x" } });
    });

    it("hands out run copies: mutating arguments or results does not change the store", async () => {
      const input = { messages: ["hi"] };
      const created = await store().createRun(newRun("r1", "t1", { input }));
      input.messages.push("argument");
      const readers: Array<() => Promise<RunRecord | undefined>> = [
        async () => created,
        () => store().updateRun("r1", { status: "running" }),
        () => store().getRun("r1"),
        async () => (await store().listRuns("t1"))[0],
        async () => (await store().listUnfinishedRuns())[0],
      ];
      for (const read of readers) {
        const result = await read();
        if (result === undefined) throw new Error("run r1 not found");
        result.error = "mutated";
        if (result.status === "running") result.status = "failed";
        if (isObject(result.input) && Array.isArray(result.input["messages"])) result.input["messages"].push("result");
        const stored = await store().getRun("r1");
        expect(stored?.error).toBeNull();
        expect(stored?.status).not.toBe("failed");
        expect(stored?.input).toStrictEqual({ messages: ["hi"] });
      }
      const counts = await store().countRunsByStatus();
      counts.running = 99;
      expect((await store().countRunsByStatus()).running).toBe(1);
    });

    it("keeps stamps increasing while the wall clock stands still or steps back", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      const now = "2030-01-01T00:00:00.000Z";
      vi.setSystemTime(new Date(now));
      const thread = await store().createThread(newThread("t1"));
      expect(thread.createdAt).toBe(now);
      const first = await store().createRun(newRun("r1", "t1"));
      const updated = await store().updateThread("t1", { status: "busy" });
      vi.setSystemTime(new Date("2029-12-31T23:00:00.000Z"));
      const second = await store().createRun(newRun("r2", "t1"));
      const running = await store().updateRun("r2", { status: "running" });
      const done = await store().updateRun("r2", { status: "completed" });

      const stamps = [thread.createdAt, first.createdAt, updated!.updatedAt, second.createdAt];
      stamps.push(running!.startedAt!, done!.endedAt!);
      expect([...stamps].sort()).toEqual(stamps);
      expect(new Set(stamps).size).toBe(stamps.length);
      expect((await store().listRuns("t1")).map((r) => r.runId)).toEqual(["r2", "r1"]);
    });

    it("closes more than once without error", async () => {
      await store().close();
      await expect(store().close()).resolves.toBeUndefined();
    });
  });
}
