/**
 * The checkpointer conformance suite: every implementation of the port in
 * engine/checkpoint/types.ts runs these same tests from a few-line test file.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newCheckpointId } from "../../../engine/checkpoint/ids.ts";
import { CheckpointNotFoundError } from "../../../engine/errors.ts";
import type {
  Checkpoint,
  CheckpointConfig,
  CheckpointMetadata,
  Checkpointer,
  CheckpointTuple,
  ListOptions,
} from "../../../engine/checkpoint/types.ts";

export interface CheckpointerFixture {
  saver: Checkpointer;
  dispose(): Promise<void>;
}

function checkpoint(channelValues: Record<string, unknown> = {}, id = newCheckpointId()): Checkpoint {
  return {
    v: 1,
    id,
    ts: new Date().toISOString(),
    channelValues,
    channelVersions: Object.fromEntries(Object.keys(channelValues).map((k) => [k, 1])),
    versionsSeen: { __input__: {} },
  };
}

function metadata(step: number, extra: Record<string, unknown> = {}): CheckpointMetadata {
  return { source: step < 0 ? "input" : "loop", step, parents: {}, ...extra };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export function describeCheckpointerConformance(
  name: string,
  make: () => Promise<CheckpointerFixture>,
  /** For the tests that write thousands of checkpoints: a saver over the network needs a round trip per write. */
  options: { bulkTimeoutMs?: number } = {},
): void {
  const bulk = options.bulkTimeoutMs;
  describe(`checkpointer conformance: ${name}`, () => {
    let fixture: CheckpointerFixture;
    let saver: Checkpointer;

    beforeEach(async () => {
      fixture = await make();
      saver = fixture.saver;
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    /** Puts `count` checkpoints as a parent chain; returns their configs, oldest first. */
    async function chain(
      threadId: string,
      count: number,
      checkpointNs = "",
      extra: (step: number) => Record<string, unknown> = () => ({}),
    ): Promise<Array<Required<CheckpointConfig>>> {
      const configs: Array<Required<CheckpointConfig>> = [];
      let config: CheckpointConfig = { threadId, checkpointNs };
      for (let step = -1; step < count - 1; step++) {
        const stored = await saver.put(config, checkpoint({ step }), metadata(step, extra(step)));
        configs.push(stored);
        config = stored;
      }
      return configs;
    }

    const ids = (tuples: CheckpointTuple[]): string[] => tuples.map((t) => t.config.checkpointId);
    const idsOf = (configs: Array<Required<CheckpointConfig>>): string[] => configs.map((c) => c.checkpointId);
    const listIds = async (
      config: { threadId: string; checkpointNs?: string },
      options?: ListOptions,
    ): Promise<string[]> => ids(await collect(saver.list(config, options)));

    it("returns undefined or nothing for unknown threads, namespaces and ids", async () => {
      expect(await saver.getTuple({ threadId: "nope", checkpointNs: "" })).toBeUndefined();
      expect(await collect(saver.list({ threadId: "nope" }))).toEqual([]);
      await chain("t", 1);
      expect(await saver.getTuple({ threadId: "t", checkpointNs: "sub:1" })).toBeUndefined();
      expect(
        await saver.getTuple({ threadId: "t", checkpointNs: "", checkpointId: newCheckpointId() }),
      ).toBeUndefined();
      expect(await collect(saver.list({ threadId: "t", checkpointNs: "sub:1" }))).toEqual([]);
    });

    it("puts a checkpoint and gets it back as the latest and by id", async () => {
      const cp = checkpoint({ messages: ["hi"], count: 1 });
      const md = metadata(0, { runId: "run-1" });
      const config = await saver.put({ threadId: "t", checkpointNs: "" }, cp, md);
      expect(config).toEqual({ threadId: "t", checkpointNs: "", checkpointId: cp.id });

      const latest = await saver.getTuple({ threadId: "t", checkpointNs: "" });
      expect(latest).toEqual({ config, checkpoint: cp, metadata: md, pendingWrites: [] });
      expect(latest?.parentConfig).toBeUndefined();
      expect(await saver.getTuple(config)).toEqual(latest);
    });

    it("links each checkpoint to its parent and returns the newest as latest", async () => {
      const [first, second, third] = await chain("t", 3);
      const latest = await saver.getTuple({ threadId: "t", checkpointNs: "" });
      expect(latest?.config).toEqual(third);
      expect(latest?.parentConfig).toEqual(second);
      expect((await saver.getTuple(second!))?.parentConfig).toEqual(first);
      expect((await saver.getTuple(first!))?.parentConfig).toBeUndefined();
    });

    it("replaces a checkpoint put again with the same id", async () => {
      const cp = checkpoint({ a: 1 });
      const config = await saver.put({ threadId: "t", checkpointNs: "" }, cp, metadata(0));
      await saver.put({ threadId: "t", checkpointNs: "" }, { ...cp, channelValues: { a: 2 } }, metadata(1));
      const tuples = await collect(saver.list({ threadId: "t" }));
      expect(tuples).toHaveLength(1);
      expect(tuples[0]?.checkpoint.channelValues).toEqual({ a: 2 });
      expect(tuples[0]?.metadata.step).toBe(1);
      expect((await saver.getTuple(config))?.metadata.step).toBe(1);
    });

    it("lists newest first, with before and limit", async () => {
      const configs = await chain("t", 6);
      const newestFirst = idsOf(configs).reverse();
      expect(await listIds({ threadId: "t", checkpointNs: "" })).toEqual(newestFirst);
      expect(await listIds({ threadId: "t", checkpointNs: "" }, { limit: 2 })).toEqual(newestFirst.slice(0, 2));
      expect(await listIds({ threadId: "t", checkpointNs: "" }, { limit: 0 })).toEqual([]);
      expect(await listIds({ threadId: "t", checkpointNs: "" }, { limit: 100 })).toEqual(newestFirst);
      const before = newestFirst[2]!;
      expect(await listIds({ threadId: "t", checkpointNs: "" }, { before })).toEqual(newestFirst.slice(3));
      expect(await listIds({ threadId: "t", checkpointNs: "" }, { before, limit: 2 })).toEqual(
        newestFirst.slice(3, 5),
      );
      expect(await listIds({ threadId: "t", checkpointNs: "" }, { before: newestFirst.at(-1)! })).toEqual([]);
    });

    it("filters list by metadata, including nested values, with no-match giving nothing", async () => {
      const configs = await chain("t", 6, "", (step) => ({
        runId: step < 2 ? "run-a" : "run-b",
        tags: { team: "qa", flags: [step % 2 === 0, null] },
        ...(step === 3 ? { reviewed: false, score: 0, note: "" } : {}),
      }));
      const newestFirst = idsOf(configs).reverse();
      const list = (filter: Record<string, unknown>, extra: ListOptions = {}) =>
        listIds({ threadId: "t", checkpointNs: "" }, { filter, ...extra });

      expect(await list({ source: "input" })).toEqual([configs[0]!.checkpointId]);
      expect(await list({ runId: "run-b" })).toEqual(newestFirst.slice(0, 3));
      expect(await list({ runId: "run-a", step: 0 })).toEqual([configs[1]!.checkpointId]);
      // Nested values compare as JSON: key order does not matter, arrays do.
      expect(await list({ tags: { flags: [true, null], team: "qa" } })).toEqual(
        newestFirst.filter((_, i) => i % 2 === 0),
      );
      expect(await list({ tags: { team: "qa" } })).toEqual([]);
      expect(await list({ reviewed: false, score: 0, note: "" })).toEqual([configs[4]!.checkpointId]);
      expect(await list({ parents: {} })).toEqual(newestFirst);
      expect(await list({ runId: "run-c" })).toEqual([]);
      expect(await list({ missing: "x" })).toEqual([]);
      expect(await list({ runId: "run-b" }, { limit: 2 })).toEqual(newestFirst.slice(0, 2));
      expect(await list({ runId: "run-a" }, { before: configs[1]!.checkpointId })).toEqual([
        configs[0]!.checkpointId,
      ]);
    });

    it("lists every namespace of a thread without checkpointNs, one namespace with it", async () => {
      const root1 = await saver.put({ threadId: "t", checkpointNs: "" }, checkpoint(), metadata(-1));
      const sub1 = await saver.put({ threadId: "t", checkpointNs: "node:1" }, checkpoint(), metadata(-1));
      const root2 = await saver.put(root1, checkpoint(), metadata(0));
      const sub2 = await saver.put(sub1, checkpoint(), metadata(0));
      await chain("other", 2);

      const all = await collect(saver.list({ threadId: "t" }));
      expect(all.map((t) => t.config)).toEqual([sub2, root2, sub1, root1]);
      expect(all[0]?.parentConfig).toEqual(sub1);
      expect(await listIds({ threadId: "t", checkpointNs: "node:1" })).toEqual(idsOf([sub2, sub1]));
      expect(await listIds({ threadId: "t", checkpointNs: "" })).toEqual(idsOf([root2, root1]));
      expect(await listIds({ threadId: "t" }, { limit: 3 })).toEqual(idsOf([sub2, root2, sub1]));
      expect(await listIds({ threadId: "t" }, { before: sub2.checkpointId })).toEqual(idsOf([root2, sub1, root1]));
      expect(await listIds({ threadId: "t" }, { before: root2.checkpointId, limit: 1 })).toEqual(idsOf([sub1]));
      expect(await listIds({ threadId: "t" }, { filter: { step: 0 } })).toEqual(idsOf([sub2, root2]));
    });

    it("pages through many checkpoints across namespaces, each exactly once", { timeout: bulk }, async () => {
      const namespaces = ["", "a:1", "b:2"];
      const expected: Array<[string, string]> = [];
      const evenIds = new Set<string>();
      for (let i = 0; i < 250; i++) {
        const cp = checkpoint({ i });
        if (i % 2 === 0) evenIds.add(cp.id);
        // Every fifth id is reused in a second namespace: ties break by namespace, descending.
        const targets = i % 5 === 0 ? ["", "b:2"] : [namespaces[i % 3]!];
        for (const checkpointNs of targets) {
          await saver.put({ threadId: "t", checkpointNs }, cp, metadata(i, { even: i % 2 === 0 }));
          expected.push([cp.id, checkpointNs]);
        }
      }
      expected.sort(([a, an], [b, bn]) => (a === b ? (an < bn ? 1 : -1) : a < b ? 1 : -1));
      const key = (t: CheckpointTuple): [string, string] => [t.config.checkpointId, t.config.checkpointNs];
      expect((await collect(saver.list({ threadId: "t" }))).map(key)).toEqual(expected);
      const evens = await collect(saver.list({ threadId: "t" }, { filter: { even: true } }));
      expect(evens.map(key)).toEqual(expected.filter(([id]) => evenIds.has(id)));
      expect(evens).toHaveLength(125 + 25);
    });

    it("keeps namespaces isolated", async () => {
      const [root] = await chain("t", 1);
      const [sub] = await chain("t", 1, "node:1");
      expect((await saver.getTuple({ threadId: "t", checkpointNs: "" }))?.config).toEqual(root);
      expect((await saver.getTuple({ threadId: "t", checkpointNs: "node:1" }))?.config).toEqual(sub);
      // An id from one namespace does not address anything in another.
      expect(await saver.getTuple({ ...root!, checkpointNs: "node:1" })).toBeUndefined();
      await saver.putWrites(sub!, [["x", 1]], "task");
      expect((await saver.getTuple(root!))?.pendingWrites).toEqual([]);
    });

    it("returns pending writes in first-insertion order", async () => {
      const [config] = await chain("t", 1);
      await saver.putWrites(config!, [["a", 1], ["b", 2]], "task-1");
      await saver.putWrites(config!, [["__interrupt__", { q: "ok?" }]], "task-2");
      await saver.putWrites(config!, [["c", 3]], "task-3");
      expect((await saver.getTuple(config!))?.pendingWrites).toEqual([
        ["task-1", "a", 1],
        ["task-1", "b", 2],
        ["task-2", "__interrupt__", { q: "ok?" }],
        ["task-3", "c", 3],
      ]);
    });

    it("replaces a write with the same (task, channel, index) in place and keeps the others", async () => {
      const [config] = await chain("t", 1);
      await saver.putWrites(config!, [["__interrupt__", "first"], ["note", "kept"]], "task-1");
      await saver.putWrites(config!, [["__interrupt__", "other task"]], "task-2");
      await saver.putWrites(config!, [["__interrupt__", "second"]], "task-1");
      // Same channel at another index is another row: appended, not replaced.
      await saver.putWrites(config!, [["x", 0], ["__interrupt__", "at index 1"]], "task-1");
      expect((await saver.getTuple(config!))?.pendingWrites).toEqual([
        ["task-1", "__interrupt__", "second"],
        ["task-1", "note", "kept"],
        ["task-2", "__interrupt__", "other task"],
        ["task-1", "x", 0],
        ["task-1", "__interrupt__", "at index 1"],
      ]);
    });

    it("attaches writes to their checkpoint only", async () => {
      const [first, second] = await chain("t", 2);
      const [otherThread] = await chain("u", 1);
      await saver.putWrites(first!, [["a", "on first"]], "task");
      expect((await saver.getTuple(first!))?.pendingWrites).toEqual([["task", "a", "on first"]]);
      expect((await saver.getTuple(second!))?.pendingWrites).toEqual([]);
      expect((await saver.getTuple({ threadId: "t", checkpointNs: "" }))?.pendingWrites).toEqual([]);
      expect((await saver.getTuple(otherThread!))?.pendingWrites).toEqual([]);
      const listed = await collect(saver.list({ threadId: "t" }));
      expect(listed.map((t) => t.pendingWrites.length)).toEqual([0, 1]);
    });

    it("rejects writes against a checkpoint it does not hold", async () => {
      const config = { threadId: "t", checkpointNs: "", checkpointId: newCheckpointId() };
      const rejection = saver.putWrites(config, [["a", 1]], "task");
      await expect(rejection).rejects.toMatchObject({ code: "CHECKPOINT_NOT_FOUND" });
      // The engine's own class: `catch (e) { if (e instanceof CheckpointNotFoundError) … }` sees savers' errors too.
      await expect(rejection).rejects.toBeInstanceOf(CheckpointNotFoundError);
    });

    it("round-trips falsy values, unicode and nesting in channels, metadata and writes", async () => {
      const values = {
        zero: 0,
        empty: "",
        no: false,
        nothing: null,
        unicode: "héllo — 世界 🌍 \u2028 \"quoted\" \\",
        nested: { list: [0, "", false, null, { deep: [[]] }], obj: {} },
        float: -1.5e-7,
      };
      const md = metadata(0, { note: "", count: 0, ok: false, who: null, "ключ": "значение" });
      const config = await saver.put({ threadId: "t", checkpointNs: "" }, checkpoint(values), md);
      const writes = Object.entries(values).map(([k, v]): [string, unknown] => [k, v]);
      await saver.putWrites(config, [...writes, ["undef", undefined]], "täsk-✓");

      const tuple = await saver.getTuple(config);
      expect(tuple?.checkpoint.channelValues).toEqual(values);
      expect(tuple?.metadata).toEqual(md);
      expect(tuple?.pendingWrites).toEqual([
        ...writes.map(([channel, value]) => ["täsk-✓", channel, value]),
        ["täsk-✓", "undef", undefined],
      ]);
      const nullWrite = tuple?.pendingWrites.find(([, channel]) => channel === "nothing");
      expect(nullWrite?.[2]).toBeNull();
    });

    it("gives back a checkpoint and metadata exactly as a JSON round trip would", async () => {
      const id = newCheckpointId();
      const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
      const iso = (at: number): string => new Date(at).toISOString();
      // Own "__proto__" keys (as JSON.parse makes them), numeric and empty keys, dropped undefineds.
      const odd = JSON.parse('{"__proto__": {"x": 1}, "10": 1, "2": 2, "": 3}') as Record<string, unknown>;
      const cases: Array<[Checkpoint, CheckpointMetadata]> = [
        [{ ...checkpoint({ a: 1 }, id), ts: iso(ms) }, metadata(0)],
        [{ ...checkpoint({ a: 1 }, id), ts: iso(ms + 1) }, metadata(0)],
        [{ ...checkpoint({ a: 1 }, id), ts: iso(ms - 5) }, metadata(0)],
        [{ ...checkpoint({ a: 1 }, id), ts: iso(ms + 86_400_000) }, metadata(0)],
        [{ ...checkpoint({ a: 1 }, id), ts: "2024-01-01T00:00:00Z" }, metadata(0)],
        [{ ...checkpoint({ a: 1 }, id), ts: "not a time" }, metadata(0)],
        [{ ...checkpoint({ a: 1 }, "plain-id"), ts: iso(ms) }, metadata(0)],
        [
          {
            ...checkpoint({ ...odd, gone: undefined, kept: { nested: odd } }, id),
            channelVersions: { ...odd, gone: undefined } as unknown as Record<string, number>,
            versionsSeen: { node: odd as Record<string, number>, empty: {}, odd: 5 as unknown as Record<string, number> },
            extra: { list: [1, undefined] },
          } as Checkpoint,
          { ...metadata(2), ...odd, gone: undefined, when: new Date(ms), parents: { "": id } },
        ],
      ];
      for (const [i, [cp, md]] of cases.entries()) {
        const config = await saver.put({ threadId: `t-${i}`, checkpointNs: "" }, cp, md);
        const tuple = await saver.getTuple(config);
        expect(tuple?.checkpoint).toStrictEqual(JSON.parse(JSON.stringify(cp)));
        expect(tuple?.metadata).toStrictEqual(JSON.parse(JSON.stringify(md)));
      }
    });

    it("keeps the writes of task ids that extend one another apart", async () => {
      const [config] = await chain("t", 1);
      await saver.putWrites(config!, [["a", 1]], "task-1");
      await saver.putWrites(config!, [["a", 2]], 'ta"sk');
      await saver.putWrites(config!, [["a", 3]], "task");
      await saver.putWrites(config!, [["a", 4]], "task");
      expect((await saver.getTuple(config!))?.pendingWrites).toEqual([
        ["task-1", "a", 1],
        ['ta"sk', "a", 2],
        ["task", "a", 4],
      ]);
    });

    it("deletes every checkpoint and write of one thread, in all namespaces, and nothing else", async () => {
      const [root] = await chain("t", 2);
      await chain("t", 2, "node:1");
      const [kept] = await chain("u", 2);
      await saver.putWrites(root!, [["a", 1]], "task");
      await saver.putWrites(kept!, [["b", 2]], "task");

      await saver.deleteThread("t");
      expect(await collect(saver.list({ threadId: "t" }))).toEqual([]);
      expect(await saver.getTuple({ threadId: "t", checkpointNs: "" })).toBeUndefined();
      expect(await saver.getTuple({ threadId: "t", checkpointNs: "node:1" })).toBeUndefined();
      expect(await saver.getTuple(root!)).toBeUndefined();
      expect(await collect(saver.list({ threadId: "u" }))).toHaveLength(2);
      expect((await saver.getTuple(kept!))?.pendingWrites).toEqual([["task", "b", 2]]);
      await saver.deleteThread("never-existed");

      // A thread id can be reused after deletion and starts empty.
      const [fresh] = await chain("t", 1);
      expect((await saver.getTuple({ threadId: "t", checkpointNs: "" }))?.config).toEqual(fresh);
      expect((await saver.getTuple(fresh!))?.pendingWrites).toEqual([]);
    });

    it("never aliases stored data to objects passed in or handed out", async () => {
      const cp = checkpoint({ items: [1, 2], user: { name: "ada" } });
      const md = metadata(0, { tags: ["a"] });
      const config = await saver.put({ threadId: "t", checkpointNs: "" }, cp, md);
      const written = { answer: "yes" };
      await saver.putWrites(config, [["__resume__", written]], "task");
      const snapshot = structuredClone(await saver.getTuple(config));

      (cp.channelValues["items"] as number[]).push(3);
      (md["tags"] as string[]).push("b");
      written.answer = "no";
      const got = await saver.getTuple(config);
      expect(got).toEqual(snapshot);

      got!.checkpoint.channelValues["user"] = "mutated";
      got!.checkpoint.versionsSeen["x"] = { y: 9 };
      got!.metadata.step = 99;
      got!.config.checkpointId = "changed";
      (got!.pendingWrites[0]![2] as { answer: string }).answer = "mutated";
      got!.pendingWrites.push(["evil", "c", 1]);
      const [listed] = await collect(saver.list({ threadId: "t" }));
      listed!.checkpoint.channelValues["items"] = [];
      expect(await saver.getTuple(config)).toEqual(snapshot);
      expect(await saver.getTuple({ threadId: "t", checkpointNs: "" })).toEqual(snapshot);
    });

    it("can be used while a list iterator is open", async () => {
      await chain("t", 4);
      const seen: string[] = [];
      for await (const tuple of saver.list({ threadId: "t", checkpointNs: "" })) {
        const again = await saver.getTuple(tuple.config);
        await saver.putWrites(tuple.config, [["seen", true]], "reader");
        seen.push(again!.config.checkpointId);
      }
      expect(seen).toHaveLength(4);
      const tuples = await collect(saver.list({ threadId: "t" }));
      expect(tuples.every((t) => t.pendingWrites.length === 1)).toBe(true);
    });

    it("finds the newest of 5,000 checkpoints as the latest", { timeout: bulk }, async () => {
      const configs = await chain("long", 5_000);
      await chain("long", 3, "node:1");
      const newest = configs.at(-1)!;
      const latest = await saver.getTuple({ threadId: "long", checkpointNs: "" });
      expect(latest?.config).toEqual(newest);
      expect(latest?.metadata.step).toBe(4_998);
      expect(latest?.parentConfig).toEqual(configs.at(-2));
      expect(await listIds({ threadId: "long", checkpointNs: "" }, { limit: 3 })).toEqual(
        idsOf(configs.slice(-3)).reverse(),
      );
      expect(await listIds({ threadId: "long", checkpointNs: "" }, { before: configs[2]!.checkpointId })).toEqual(
        idsOf(configs.slice(0, 2)).reverse(),
      );
      expect(await collect(saver.list({ threadId: "long" }))).toHaveLength(5_003);
    });
  });
}
