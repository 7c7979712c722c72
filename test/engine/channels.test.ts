/**
 * The channel kinds, as table tests with falsy values (0, "", false, null):
 * each on its own (update / get / checkpoint round trip) and inside a graph
 * over both checkpointers.
 */
import { describe, expect, it } from "vitest";
import {
  EmptyChannelError,
  InvalidUpdateError,
  START,
  StateGraph,
  ephemeral,
  isOverwrite,
  lastValue,
  overwrite,
  reducer,
  topic,
  type Channel,
  type ChannelSpec,
} from "../../engine/index.ts";
import { RunLog, SAVERS, useSaver } from "./fixtures.ts";

const FALSY: ReadonlyArray<readonly [string, unknown]> = [
  ["0", 0],
  ['""', ""],
  ["false", false],
  ["null", null],
];

/** A channel restored from another's checkpoint, through JSON as a checkpointer stores it. */
function roundTrip<V, U>(spec: ChannelSpec<V, U>, channel: Channel<V, U>): Channel<V, U> {
  const saved = channel.checkpoint();
  return spec.create("copy", saved === undefined ? undefined : JSON.parse(JSON.stringify(saved)));
}

describe("lastValue", () => {
  it.each(FALSY)("holds %s and survives a checkpoint round trip", (_label, value) => {
    const spec = lastValue<unknown>();
    const channel = spec.create("x");
    expect(channel.isAvailable()).toBe(false);
    expect(() => channel.get()).toThrow(EmptyChannelError);
    expect(channel.update([value])).toBe(true);
    expect(channel.isAvailable()).toBe(true);
    expect(channel.get()).toBe(value);
    const copy = roundTrip(spec, channel);
    expect(copy.isAvailable()).toBe(true);
    expect(copy.get()).toBe(value);
  });

  it("keeps its value through a step without writes", () => {
    const channel = lastValue<number>().create("x");
    channel.update([0]);
    expect(channel.update([])).toBe(false);
    expect(channel.get()).toBe(0);
  });

  it("two writes in one step are an InvalidUpdateError naming the channel", () => {
    const channel = lastValue<number>().create("count");
    expect(() => channel.update([1, 2])).toThrow(InvalidUpdateError);
    expect(() => channel.update([0, 0])).toThrow(/"count".*2 values/);
  });

  it.each(FALSY)("a default of %s fills a new thread", (_label, value) => {
    const channel = lastValue<unknown>({ default: () => value }).create("x");
    expect(channel.isAvailable()).toBe(true);
    expect(channel.get()).toBe(value);
  });
});

describe("reducer", () => {
  const sum = () => reducer((a: number, b: number) => a + b, () => 0);

  it("starts from its default and folds every write of a step in order", () => {
    const spec = reducer((all: string[], more: string) => [...all, more], () => ["start"]);
    const channel = spec.create("log");
    expect(channel.get()).toEqual(["start"]);
    expect(channel.update(["a", "", "b"])).toBe(true);
    expect(channel.get()).toEqual(["start", "a", "", "b"]);
    expect(roundTrip(spec, channel).get()).toEqual(["start", "a", "", "b"]);
  });

  it.each(FALSY)("keeps a falsy value %s as the value (default and round trip)", (_label, value) => {
    const spec = reducer((_old: unknown, next: unknown) => next, () => value);
    const channel = spec.create("x");
    expect(channel.isAvailable()).toBe(true);
    expect(channel.get()).toBe(value);
    expect(roundTrip(spec, channel).get()).toBe(value);
  });

  it("overwrite() replaces the value instead of reducing; later writes in the step reduce onto it", () => {
    const spec = sum();
    const channel = spec.create("total");
    channel.update([5, 6]);
    expect(channel.get()).toBe(11);
    channel.update([overwrite(0)]);
    expect(channel.get()).toBe(0);
    channel.update([overwrite(100), 1]);
    expect(channel.get()).toBe(101);
    expect(roundTrip(spec, channel).get()).toBe(101);
  });

  it("two overwrites in one step are an InvalidUpdateError", () => {
    expect(() => sum().create("total").update([overwrite(1), overwrite(2)])).toThrow(InvalidUpdateError);
  });

  it("overwrite values are plain JSON and recognizable", () => {
    const value = JSON.parse(JSON.stringify(overwrite([1, 2])));
    expect(isOverwrite(value)).toBe(true);
    expect(isOverwrite({ value: 1 })).toBe(false);
    expect(isOverwrite(null)).toBe(false);
  });
});

describe("topic", () => {
  it.each(FALSY)("without accumulate: holds only the last step's values (%s included)", (_label, value) => {
    const spec = topic<unknown>();
    const channel = spec.create("t");
    expect(channel.isAvailable()).toBe(false);
    channel.update([value, "x"]);
    expect(channel.get()).toEqual([value, "x"]);
    expect(roundTrip(spec, channel).get()).toEqual([value, "x"]);
    channel.update([value]);
    expect(channel.get()).toEqual([value]);
    // A step with no writes clears it.
    expect(channel.update([])).toBe(true);
    expect(channel.isAvailable()).toBe(false);
    expect(channel.update([])).toBe(false);
  });

  it.each(FALSY)("with accumulate: keeps every step's values (%s included); arrays are spread", (_label, value) => {
    const spec = topic<unknown>({ accumulate: true });
    const channel = spec.create("t");
    channel.update([value]);
    channel.update([[value, 1]]);
    expect(channel.update([])).toBe(false);
    expect(channel.get()).toEqual([value, value, 1]);
    expect(roundTrip(spec, channel).get()).toEqual([value, value, 1]);
  });
});

describe("ephemeral", () => {
  it.each(FALSY)("holds %s for one step, then clears", (_label, value) => {
    const spec = ephemeral<unknown>();
    const channel = spec.create("e");
    channel.update([value]);
    expect(channel.isAvailable()).toBe(true);
    expect(channel.get()).toBe(value);
    expect(roundTrip(spec, channel).get()).toBe(value);
    expect(channel.update([])).toBe(true);
    expect(channel.isAvailable()).toBe(false);
    expect(roundTrip(spec, channel).isAvailable()).toBe(false);
  });

  it("takes the last of several writes in one step", () => {
    const channel = ephemeral<number>().create("e");
    channel.update([1, 0]);
    expect(channel.get()).toBe(0);
  });
});

describe.each(SAVERS)("channels in a graph ($name)", (kind) => {
  const saver = useSaver(kind);

  it.each(FALSY)("a falsy value %s is written, checkpointed and read back", async (_label, value) => {
    const graph = new StateGraph({ v: lastValue<unknown>(), seen: lastValue<string>() })
      .addNode("read", (s) => ({ seen: `${JSON.stringify(s.v)}:${"v" in s}` }))
      .addEdge(START, "read")
      .compile({ checkpointer: saver() });
    expect(await graph.invoke({ v: value }, { threadId: "t" })).toEqual({ v: value, seen: `${JSON.stringify(value)}:true` });
    expect((await graph.getState("t")).values).toEqual({ v: value, seen: `${JSON.stringify(value)}:true` });
  });

  it("two parallel writes to a lastValue channel fail the step with InvalidUpdateError", async () => {
    const graph = new StateGraph({ v: lastValue<number>() })
      .addNode("a", () => ({ v: 1 }))
      .addNode("b", () => ({ v: 2 }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile({ checkpointer: saver() });
    await expect(graph.invoke({}, { threadId: "t" })).rejects.toBeInstanceOf(InvalidUpdateError);
    expect((await graph.getState("t")).values).toEqual({});
  });

  it("a reducer folds parallel writes; overwrite() resets it", async () => {
    const graph = new StateGraph({ total: reducer((a: number, b: number) => a + b, () => 0), reset: lastValue<boolean>() })
      .addNode("a", () => ({ total: 2 }))
      .addNode("b", () => ({ total: 3 }))
      .addNode("c", (s) => (s.reset ? { total: overwrite(0) } : {}))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addEdge(["a", "b"], "c")
      .compile({ checkpointer: saver() });
    expect(await graph.invoke({ reset: false }, { threadId: "keep" })).toEqual({ total: 5, reset: false });
    expect(await graph.invoke({ reset: false }, { threadId: "keep" })).toEqual({ total: 10, reset: false });
    expect(await graph.invoke({ reset: true }, { threadId: "reset" })).toEqual({ total: 0, reset: true });
  });

  it("an ephemeral value is seen by the next step only; a topic keeps one step's values", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ flash: ephemeral<number>(), events: topic<string>(), kept: topic<string>({ accumulate: true }) })
      .addNode("a", () => ({ flash: 0, events: "a", kept: "a" }))
      .addNode("b", (s) => {
        log.hit(`b saw ${JSON.stringify(s.flash)} ${JSON.stringify(s.events)}`);
        return { kept: ["b1", "b2"] };
      })
      .addNode("c", (s) => {
        log.hit(`c saw ${"flash" in s} ${"events" in s}`);
        return {};
      })
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", "c")
      .compile({ checkpointer: saver() });
    expect(await graph.invoke({}, { threadId: "t" })).toEqual({ kept: ["a", "b1", "b2"] });
    expect(log.entries).toEqual(['b saw 0 ["a"]', "c saw false false"]);
  });
});
