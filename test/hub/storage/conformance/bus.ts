/**
 * The event bus conformance suite: every EventBus adapter runs these tests
 * from a few-line file. A fixture gives two "nodes" on one backend (two
 * clients of one Redis, or one memory bus twice) with a small replay bound.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BusStreamLostError, type BusAppend, type BusEntry, type EventBus } from "../../../../hub/threads/bus.ts";

export interface BusFixture {
  nodes: [EventBus, EventBus, EventBus];
  /** The replay bound the fixture configured (approximate for Redis: at least this many kept). */
  maxLen: number;
  dispose(): Promise<void>;
}

const WAIT = { timeout: 10_000, interval: 5 };
const event = (n: number, pin: BusAppend["pin"] = null): BusAppend => ({ payload: JSON.stringify({ type: "event", n, text: "✓ \u2028 \"q\"" }), pin });
const numbers = (entries: readonly BusEntry[]): number[] => entries.map((e) => (JSON.parse(e.payload) as { n: number }).n);

export function describeBusConformance(name: string, make: () => Promise<BusFixture>): void {
  describe(`event bus conformance: ${name}`, () => {
    let fixture: BusFixture;
    let a: EventBus;
    let b: EventBus;
    let c: EventBus;
    beforeEach(async () => {
      fixture = await make();
      [a, b, c] = fixture.nodes;
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    it("numbers every node's appends into one increasing seq per thread, past Date.now() * 1000", async () => {
      const before = Date.now() * 1000;
      const first = await a.append("t", [event(1), event(2)]);
      expect(first).toBeGreaterThanOrEqual(before);
      expect(await b.append("t", [event(3)])).toBe(first + 2);
      expect(await c.append("t", [event(4)])).toBe(first + 3);
      // Another thread has its own counter.
      expect(await b.append("u", [event(9)])).toBeGreaterThanOrEqual(before);
      const read = await c.read("t", 0, 100);
      expect(read.entries.map((e) => e.seq)).toEqual([first, first + 1, first + 2, first + 3]);
      expect(numbers(read.entries)).toEqual([1, 2, 3, 4]);
      expect(read.entries[0]?.payload).toBe(event(1).payload);
      expect(read).toMatchObject({ head: first + 3, oldest: first });
      expect((await a.read("t", first + 1, 100)).entries.map((e) => e.seq)).toEqual([first + 2, first + 3]);
      expect((await a.read("t", 0, 2)).entries.map((e) => e.seq)).toEqual([first, first + 1]);
      expect(await a.read("nothing", 0, 10)).toEqual({ pins: [], entries: [], oldest: null, head: 0 });
    });

    it("a thread without a counter (new, or lost): \"ask\" refuses and appends nothing; a restore starts it at its floor with its pins", async () => {
      await expect(a.append("lost", [event(1)], undefined, "ask")).rejects.toBeInstanceOf(BusStreamLostError);
      expect(await b.read("lost", 0, 10)).toMatchObject({ entries: [], head: 0 });
      const floor = Date.now() * 1000 + 5_000_000;
      const values = { seq: floor - 7, payload: JSON.stringify({ type: "event", n: 0 }), field: "values" };
      const asked = { seq: floor - 2, payload: JSON.stringify({ type: "event", n: -1 }), field: "q:i1" };
      // The batch after the restore applies its own pins on top: it sets lifecycle and answers q:i1.
      const first = await a.append("lost", [event(1, { set: "lifecycle" }), event(2, { delete: ["q:i1"] })], undefined, { floor, pins: [values, asked] });
      expect(first).toBe(floor + 1);
      const read = await c.read("lost", 0, 10);
      expect(read.entries.map((e) => e.seq)).toEqual([floor + 1, floor + 2]);
      expect(read.pins).toEqual([{ seq: values.seq, payload: values.payload }, { seq: floor + 1, payload: event(1).payload }]);
      // A stream that has its counter ignores what an append says about a lost one.
      expect(await b.append("lost", [event(3)], undefined, "ask")).toBe(floor + 3);
      expect(await c.append("lost", [event(4)], undefined, { floor: 1, pins: [{ ...values, field: "x" }] })).toBe(floor + 4);
      expect((await a.read("lost", 0, 10)).pins).toHaveLength(2);
    });

    it("delivers every node's appends live, in seq order, to every listening node", async () => {
      const seen: Array<[string, number[]]> = [];
      const got = { a: [] as BusEntry[], b: [] as BusEntry[] };
      const stopA = await a.listen("t", (entries) => got.a.push(...entries));
      const stopB = await b.listen("t", (entries) => got.b.push(...entries));
      const stopOther = await b.listen("other", (entries) => seen.push(["other", numbers(entries)]));
      // 3 nodes × 20 appends, all at once: one total order, no seq twice.
      await Promise.all([a, b, c].flatMap((node, k) => Array.from({ length: 20 }, (_, i) => node.append("t", [event(k * 100 + i)]))));
      await vi.waitFor(() => expect(got.a).toHaveLength(60), WAIT);
      await vi.waitFor(() => expect(got.b).toHaveLength(60), WAIT);
      const seqs = got.a.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(new Set(seqs).size).toBe(60);
      expect(seqs.at(-1)! - seqs[0]!).toBe(59);
      expect(got.b).toEqual(got.a);
      expect(seen).toEqual([]);
      stopA();
      stopB();
      stopOther();
      await a.append("t", [event(999)]);
      await b.append("t", [event(1000)]);
      expect(got.a).toHaveLength(60);
    });

    it("keeps a bounded replay: the oldest entries go, the head and seqs stay", async () => {
      const first = await a.append("t", [event(0)]);
      for (let i = 1; i < fixture.maxLen * 3; i += 50) {
        await a.append("t", Array.from({ length: 50 }, (_, k) => event(i + k)));
      }
      const read = await b.read("t", 0, fixture.maxLen * 10);
      expect(read.oldest).toBeGreaterThan(first);
      expect(read.entries[0]?.seq).toBe(read.oldest);
      expect(read.entries.length).toBeGreaterThanOrEqual(fixture.maxLen);
      expect(read.entries.length).toBeLessThan(fixture.maxLen * 3);
      expect(read.entries.at(-1)?.seq).toBe(read.head);
    });

    it("keeps the baseline pins beside the replay, set and deleted by appends", async () => {
      const first = await a.append("t", [event(1, { set: "values" }), event(2, { set: "q:x" }), event(3, { set: "q:y" })]);
      await b.append("t", [event(4, { delete: ["q:x"] }), event(5, { set: "values" })]);
      for (let i = 0; i < fixture.maxLen * 2; i += 100) await c.append("t", Array.from({ length: 100 }, (_, k) => event(1000 + i + k)));
      const read = await a.read("t", 0, 10);
      // The pins outlive the replay that held them.
      expect(read.pins.map((p) => [p.seq, numbers([p])[0]])).toEqual([
        [first + 2, 3],
        [first + 4, 5],
      ]);
      expect(read.oldest).toBeGreaterThan(first + 4);
    });

    it("delivers a topic's messages to every subscribed node, the sender's included, and none after unsubscribe", async () => {
      const got: Record<string, string[]> = { a: [], b: [], c: [] };
      const offA = await a.subscribe("reviews", (m) => got["a"]!.push(m));
      const offB = await b.subscribe("reviews", (m) => got["b"]!.push(m));
      const offOther = await c.subscribe("other", (m) => got["c"]!.push(m));
      await c.publish("reviews", "one ✓ \n two");
      await b.publish("reviews", "three");
      await vi.waitFor(() => expect(got["b"]).toEqual(["one ✓ \n two", "three"]), WAIT);
      await vi.waitFor(() => expect(got["a"]).toEqual(["one ✓ \n two", "three"]), WAIT);
      offA();
      await a.publish("other", "o");
      await c.publish("reviews", "four");
      await vi.waitFor(() => expect(got["b"]).toHaveLength(3), WAIT);
      await vi.waitFor(() => expect(got["c"]).toEqual(["o"]), WAIT);
      expect(got["a"]).toHaveLength(2);
      offB();
      offOther();
    });

    it("seeds a thread only while its stream is empty", async () => {
      const seeded = await a.seed("t", [event(1, { set: "values" })]);
      expect(seeded).not.toBeNull();
      expect(await b.seed("t", [event(2, { set: "values" })])).toBeNull();
      expect(numbers((await c.read("t", 0, 10)).entries)).toEqual([1]);
      expect(await b.append("t", [event(3)])).toBe(seeded! + 1);
    });

    it("refuses appends fenced by an older lease token; the fence never goes down", async () => {
      await a.fence("t", 5);
      expect(await a.append("t", [event(1)], { token: 5 })).toBeGreaterThan(0);
      expect(await b.append("t", [event(2)], { token: 6 })).toBeGreaterThan(0);
      await b.fence("t", 7);
      await c.fence("t", 3);
      await expect(a.append("t", [event(3)], { token: 6 })).rejects.toMatchObject({ code: "BUS_FENCED" });
      expect(await a.append("t", [event(4)], { token: 7 })).toBeGreaterThan(0);
      // Unfenced appends (answers, claims: no run) always go through.
      expect(await c.append("t", [event(5)])).toBeGreaterThan(0);
      expect(numbers((await a.read("t", 0, 10)).entries)).toEqual([1, 2, 4, 5]);
    });
  });
}
