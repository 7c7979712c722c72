/**
 * ThreadLog as a unit: numbering, encode-once fan-out, the transform hook,
 * replay (baseline + current run, exact `since`, resync when evicted).
 */
import { describe, expect, it } from "vitest";
import type { ProtocolEvent } from "../../../hub/protocol/index.ts";
import { ThreadLog, ThreadLogs, type LogEntry, type LogSubscriber } from "../../../hub/threads/index.ts";

const ev = (method: "values" | "lifecycle" | "input.requested" | "input.answered" | "custom", data: unknown, run = "r1"): ProtocolEvent =>
  ({ type: "event", thread_id: "t", run_id: run, method, params: { namespace: [], timestamp: 1, data } }) as ProtocolEvent;

const collector = (channels: string[] = ["values", "lifecycle", "input", "custom"]) => {
  const got: LogEntry[] = [];
  const sub: LogSubscriber = {
    wants: (e) => channels.includes(e.method.startsWith("input.") ? "input" : e.method),
    deliver: (entry) => got.push(entry),
  };
  return { got, sub };
};

const ALL = { channels: ["values", "lifecycle", "input", "custom"] as const };
const seqs = (entries: readonly LogEntry[]) => entries.map((e) => e.seq);

describe("ThreadLog", () => {
  it("numbers events per thread and hands every subscriber the same encoded entry", () => {
    const log = new ThreadLog({ threadId: "t" });
    const a = collector();
    const b = collector(["lifecycle"]);
    log.attach(a.sub);
    log.attach(b.sub);
    log.publish([ev("lifecycle", { event: "started" }), ev("values", { x: 1 }), ev("lifecycle", { event: "completed" })]);
    expect(seqs(a.got)).toEqual([1, 2, 3]);
    expect(a.got.map((e) => e.event.event_id)).toEqual(["1", "2", "3"]);
    expect(seqs(b.got)).toEqual([1, 3]);
    expect(b.got[0]).toBe(a.got[0]); // one entry, one string, for all
    expect(JSON.parse(a.got[1]!.text)).toMatchObject({ seq: 2, event_id: "2", params: { data: { x: 1 } } });
    log.detach(a.sub);
    log.publish([ev("values", { x: 2 })]);
    expect(a.got).toHaveLength(3);
  });

  it("drops parsed high-volume events once the next batch is published, and gives the same event back from the bytes", () => {
    const log = new ThreadLog({ threadId: "t" });
    log.beginRun("r1");
    const tick = (i: number): ProtocolEvent =>
      ({ type: "event", thread_id: "t", run_id: "r1", method: "custom", params: { namespace: ["sub:1"], timestamp: 1, node: "n", data: { name: "tick", payload: { i, s: "é€" } } } }) as ProtocolEvent;
    const [first] = log.publish([tick(1)]);
    const [values] = log.publish([ev("values", { x: 1 })]);
    const original = first!.event; // still the published object until the next publish
    log.publish([tick(2)]);
    log.publish([tick(3)]);
    // Released: decoded again, equal to what was published, a new object each time.
    expect(first!.event).toEqual(original);
    expect(first!.event).not.toBe(first!.event);
    // The baseline kinds stay parsed: one object.
    expect(values!.event).toBe(values!.event);
    // Replay matches on channel and namespace, released or not.
    const replay = log.replay({ channels: ["custom:tick"], namespaces: [["sub"]] }, 0);
    expect(replay.kind === "events" && replay.entries.map((e) => (e.event.method === "custom" ? e.event.params.data.payload : null))).toEqual([
      { i: 1, s: "é€" },
      { i: 2, s: "é€" },
      { i: 3, s: "é€" },
    ]);
    expect(log.replay({ channels: ["custom"], namespaces: [["other"]] }, 0)).toEqual({ kind: "events", entries: [] });
  });

  it("applies the transform hook before numbering (drop or redact)", () => {
    const log = new ThreadLog({
      threadId: "t",
      transform: (e) => (e.method === "custom" ? null : e.method === "values" ? { ...e, params: { ...e.params, data: { redacted: true } } } : e),
    });
    const [values, custom, lifecycle] = [log.publish([ev("values", { ssn: "x" })]), log.publish([ev("custom", { payload: 1 })]), log.publish([ev("lifecycle", { event: "started" })])];
    expect(values[0]?.event.params.data).toEqual({ redacted: true });
    expect(custom).toEqual([]);
    expect(lifecycle[0]?.seq).toBe(2);
  });

  it("drops an event whose transform throws (a broken redaction hook fails closed)", () => {
    const log = new ThreadLog({
      threadId: "t",
      transform: (e) => {
        if (e.method === "values") throw new Error("boom");
        return e;
      },
    });
    expect(log.publish([ev("values", { secret: 1 }), ev("lifecycle", { event: "started" })]).map((e) => e.event.method)).toEqual(["lifecycle"]);
  });

  it("replays the baseline and the current run; answered questions are not pending", () => {
    const log = new ThreadLog({ threadId: "t" });
    log.beginRun("r1");
    log.publish([
      ev("lifecycle", { event: "started" }),
      ev("values", { v: 1 }),
      ev("input.requested", { interrupt_id: "i1", payload: 1 }),
      ev("input.requested", { interrupt_id: "i2", payload: 2 }),
      ev("lifecycle", { event: "interrupted" }),
    ]);
    log.beginRun("r2");
    log.publish([ev("input.answered", { interrupt_ids: ["i1"] }, "r2"), ev("lifecycle", { event: "started" }, "r2"), ev("lifecycle", { event: "interrupted" }, "r2")]);
    const replay = log.replay(ALL);
    expect(replay.kind).toBe("events");
    // values (2) and the still-pending i2 (4) from run 1, then all of run 2.
    expect(replay.kind === "events" && seqs(replay.entries)).toEqual([2, 4, 6, 7, 8]);
    expect(log.wasAnswered("i1")).toBe(true);
    expect(log.run).toEqual({ run_id: "r2", status: "interrupted" });

    const since = log.replay(ALL, 3);
    expect(since.kind === "events" && seqs(since.entries)).toEqual([4, 5, 6, 7, 8]);
    expect(log.replay(ALL, 8)).toEqual({ kind: "events", entries: [] });
    const ahead = log.replay(ALL, 99);
    expect(ahead.kind === "resync" && ahead.event.params.data.reason).toBe("unknown_event_id");
  });

  it("the next run's replay starts with what happened to the questions between runs: votes, reassignments, the answer", () => {
    const log = new ThreadLog({ threadId: "t" });
    log.beginRun("r1");
    log.publish([ev("lifecycle", { event: "started" }), ev("input.requested", { interrupt_id: "i1", payload: 1 }), ev("lifecycle", { event: "interrupted" })]);
    const between = (method: string, data: unknown): ProtocolEvent => ({ ...ev("custom", data), method }) as ProtocolEvent;
    log.publish([between("input.voted", { interrupt_id: "i1", verdict: "approve" }), between("input.reassigned", { interrupt_id: "i1" }), ev("input.answered", { interrupt_ids: ["i1"] })]);
    log.beginRun("r2");
    log.publish([ev("lifecycle", { event: "started" }, "r2")]);
    const replay = log.replay(ALL);
    // The question (2) is answered, so not pending; the vote (4), reassignment (5) and answer (6) lead run 2 (7).
    expect(replay.kind === "events" && replay.entries.map((e) => `${e.seq} ${e.method}`)).toEqual(["4 input.voted", "5 input.reassigned", "6 input.answered", "7 lifecycle"]);
  });

  it("keeps a bounded buffer and answers a gap with a resync baseline", () => {
    const log = new ThreadLog({ threadId: "t", capacity: 3 });
    log.beginRun("r1");
    log.publish([ev("values", { v: 1 }), ev("input.requested", { interrupt_id: "i1", payload: "q" })]);
    log.publish(Array.from({ length: 5 }, (_, i) => ev("custom", { payload: i })));
    const gap = log.replay(ALL, 2);
    expect(gap.kind).toBe("resync");
    if (gap.kind !== "resync") return;
    expect(gap.event).toMatchObject({ seq: 7, event_id: "7:resync", method: "resync" });
    expect(gap.event.params.data).toEqual({
      reason: "evicted",
      head_seq: 7,
      snapshot: { values: { v: 1 }, interrupts: [{ interrupt_id: "i1", namespace: [], payload: "q" }], run: { run_id: "r1", status: "started" } },
    });
    // A plain subscribe (no since) gets the baseline: values and the pending question.
    const plain = log.replay(ALL);
    expect(plain.kind === "events" && seqs(plain.entries)).toEqual([1, 2]);
    expect(log.replay(ALL, 4)).toMatchObject({ kind: "events" });
  });

  it("retainPending drops questions the checkpoint no longer has", () => {
    const log = new ThreadLog({ threadId: "t" });
    log.publish([ev("input.requested", { interrupt_id: "i1", payload: 1 }), ev("input.requested", { interrupt_id: "i2", payload: 2 })]);
    log.beginRun("r2");
    log.retainPending(new Set(["i2"]));
    const replay = log.replay({ channels: ["input"] });
    expect(replay.kind === "events" && seqs(replay.entries)).toEqual([2]);
  });
});

describe("ThreadLogs", () => {
  it("drops the least recently used idle logs past maxLogs; a reloaded log never reuses seqs", async () => {
    const busy = new Set(["b"]);
    const logs = new ThreadLogs({ maxLogs: 2, inUse: (id) => busy.has(id), now: () => 5 });
    const a = await logs.open("a", async () => null);
    a.attach(collector().sub);
    await logs.open("b", async () => null);
    const c = await logs.open("c", async () => null); // over the bound, but just opened
    c.publish([ev("values", { v: 1 })]);
    await logs.open("d", async () => null); // c is now the only idle one: dropped
    expect([logs.get("a"), logs.get("b"), logs.get("c"), logs.get("d")].map((l) => l !== undefined)).toEqual([true, true, false, true]);
    const reloaded = await logs.open("c", async () => ({ events: [ev("values", { v: 1 })], runId: "r1" }));
    expect(reloaded.headSeq).toBe(5 * 1000 + 1);
  });
});

