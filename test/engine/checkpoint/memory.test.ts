/** MemorySaver against the checkpointer conformance suite, plus what its compact encoding must survive. */
import { describe, expect, it } from "vitest";
import { newCheckpointId } from "../../../engine/checkpoint/ids.ts";
import { MemorySaver } from "../../../engine/checkpoint/memory.ts";
import type { Checkpoint } from "../../../engine/checkpoint/types.ts";
import { describeCheckpointerConformance } from "./conformance.ts";

describeCheckpointerConformance("MemorySaver", async () => ({
  saver: new MemorySaver(),
  dispose: async () => {},
}));

describe("MemorySaver names", () => {
  function checkpointWith(names: string[]): Checkpoint {
    return {
      v: 1,
      id: newCheckpointId(),
      ts: new Date().toISOString(),
      channelValues: Object.fromEntries(names.map((name, i) => [name, { v: i }])),
      channelVersions: Object.fromEntries(names.map((name) => [name, 1])),
      versionsSeen: { [names[0]!]: Object.fromEntries(names.map((name) => [name, 2])) },
    };
  }

  it("round-trips more distinct and longer names than it interns", async () => {
    // Past the saver's name table (4,096 names, 128 chars each) names are written out in full.
    const saver = new MemorySaver();
    const many = Array.from({ length: 5_000 }, (_, i) => `channel-${i}`);
    const long = ["x".repeat(129), "y".repeat(10_000)];
    const first = checkpointWith(many);
    const second = checkpointWith([...long, "channel-1", "later-name"]);
    const root = await saver.put({ threadId: "t", checkpointNs: "" }, first, { source: "loop", step: 0, parents: {} });
    const next = await saver.put(root, second, { source: "loop", step: 1, parents: {}, [long[1]!]: 1 });
    await saver.putWrites(next, [["later-name-2", 1], [long[0]!, 2], ["channel-4999", 3]], "task");

    expect((await saver.getTuple(root))?.checkpoint).toEqual(first);
    const tuple = await saver.getTuple(next);
    expect(tuple?.checkpoint).toEqual(second);
    expect(tuple?.metadata).toEqual({ source: "loop", step: 1, parents: {}, [long[1]!]: 1 });
    expect(tuple?.pendingWrites).toEqual([
      ["task", "later-name-2", 1],
      ["task", long[0], 2],
      ["task", "channel-4999", 3],
    ]);
  });

  it("keeps names apart between savers", async () => {
    const a = new MemorySaver();
    const b = new MemorySaver();
    const inA = checkpointWith(["one", "two"]);
    const inB = checkpointWith(["two", "three"]);
    const metadata = { source: "loop" as const, step: 0, parents: {} };
    const configA = await a.put({ threadId: "t", checkpointNs: "" }, inA, metadata);
    const configB = await b.put({ threadId: "t", checkpointNs: "" }, inB, metadata);
    expect((await a.getTuple(configA))?.checkpoint).toEqual(inA);
    expect((await b.getTuple(configB))?.checkpoint).toEqual(inB);
  });
});
