/**
 * BaseChatModel and the run hooks (seed 000 §2.4–2.6): every chunk reaches
 * the observer when one is installed, invoke() streams through it, `nostream`
 * hides a call, and errors and aborts come out typed.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { GraphInterrupt } from "../../../engine/errors.ts";
import { aiMessageChunk, humanMessage } from "../../../engine/messages/index.ts";
import type { AIMessageChunk, Message } from "../../../engine/messages/index.ts";
import { BaseChatModel, ModelError, ScriptedChatModel, tool } from "../../../engine/models/index.ts";
import type { ModelRequest } from "../../../engine/models/index.ts";
import { collect, recordingHost } from "./hook-host.ts";

const hi = [humanMessage("hi")];

/** A provider whose stream the test controls. */
class TestModel extends BaseChatModel {
  readonly name = "test-model";
  requests: ModelRequest[] = [];
  closed = 0;
  constructor(
    private readonly produce: (request: ModelRequest) => AsyncGenerator<AIMessageChunk>,
    tags?: string[],
  ) {
    super(tags ? { tags } : {});
  }
  protected async *_stream(_messages: readonly Message[], request: ModelRequest): AsyncGenerator<AIMessageChunk> {
    this.requests.push(request);
    try {
      yield* this.produce(request);
    } finally {
      this.closed++;
    }
  }
}

async function* chunksOf(...chunks: AIMessageChunk[]): AsyncGenerator<AIMessageChunk> {
  yield* chunks;
}

const pieces = (chunks: AIMessageChunk[]): string[] => chunks.map((c) => c.content);

describe("without a run", () => {
  it("streams and invokes with no observer", async () => {
    const model = new ScriptedChatModel({ responses: ["ab", "cd"] });
    expect(pieces(await collect(model.stream(hi)))).toEqual(["a", "b"]);
    expect((await model.invoke(hi)).content).toBe("cd");
  });
});

describe("inside a run", () => {
  it("invoke() streams every chunk through the observer and returns the merged message", async () => {
    const rec = recordingHost();
    const model = new ScriptedChatModel({ responses: ["hello"], tags: ["agent"] });
    const message = await rec.run(() => model.invoke(hi, { tags: ["call"] }));
    expect(rec.modelCalls).toEqual([{ tags: ["agent", "call"], model: "scripted" }]);
    expect(rec.chunks.map((c) => (c.chunk as AIMessageChunk).content)).toEqual(["h", "e", "l", "l", "o"]);
    expect(message.content).toBe("hello");
    // The observed chunks and the returned message share one id.
    expect(new Set(rec.chunks.map((c) => (c.chunk as AIMessageChunk).id))).toEqual(new Set([message.id]));
  });

  it("stream() gives each chunk to the observer and the caller, in order", async () => {
    const rec = recordingHost();
    const model = new ScriptedChatModel({ responses: [{ content: "ok", toolCalls: [{ name: "f", args: { a: 1 } }] }] });
    const received = await rec.run(() => collect(model.stream(hi)));
    expect(rec.chunks.map((c) => c.chunk)).toEqual(received);
    expect(rec.chunks.every((c, i) => c.chunk === received[i])).toBe(true);
  });

  it("observes each call separately", async () => {
    const rec = recordingHost();
    const model = new ScriptedChatModel({ responses: ["a", "b"] });
    await rec.run(async () => {
      await model.invoke(hi);
      await model.invoke(hi);
    });
    expect(rec.chunks.map((c) => [c.call, (c.chunk as AIMessageChunk).content])).toEqual([
      [0, "a"],
      [1, "b"],
    ]);
  });

  it.each([
    ["a call tag", undefined, ["nostream"]],
    ["a model tag", ["nostream"], undefined],
  ])("sends nothing to the observer for %s `nostream`", async (_label, modelTags, callTags) => {
    const rec = recordingHost();
    const model = new ScriptedChatModel({ responses: ["hello"], ...(modelTags ? { tags: modelTags } : {}) });
    const message = await rec.run(() => model.invoke(hi, callTags ? { tags: callTags } : {}));
    expect(message.content).toBe("hello");
    expect(rec.chunks).toEqual([]);
    expect(rec.modelCalls).toEqual([]);
  });

  it("keeps concurrent runs apart", async () => {
    const one = recordingHost();
    const two = recordingHost();
    const model = new ScriptedChatModel({ responses: ["aaa", "bbb"], delayMs: 1 });
    await Promise.all([one.run(() => model.invoke(hi)), two.run(() => model.invoke(hi))]);
    expect(one.chunks.map((c) => (c.chunk as AIMessageChunk).content).join("")).toBe("aaa");
    expect(two.chunks.map((c) => (c.chunk as AIMessageChunk).content).join("")).toBe("bbb");
  });
});

describe("ids", () => {
  it("uses the provider's message id for every chunk, even when only the first has it", async () => {
    const model = new TestModel(() => chunksOf(aiMessageChunk("a", { id: "prov-1" }), aiMessageChunk("b"), aiMessageChunk("c", { id: "other" })));
    const chunks = await collect(model.stream(hi));
    expect(chunks.map((c) => c.id)).toEqual(["prov-1", "prov-1", "prov-1"]);
    const model2 = new TestModel(() => chunksOf(aiMessageChunk("a", { id: "prov-2" })));
    expect((await model2.invoke(hi)).id).toBe("prov-2");
  });

  it("gives an empty response an id", async () => {
    const message = await new TestModel(() => chunksOf()).invoke(hi);
    expect(message).toMatchObject({ type: "ai", content: "", tool_calls: [] });
    expect(message.id).toMatch(/^[A-Za-z0-9_-]{21}$/);
  });
});

describe("errors", () => {
  it("wraps a provider's plain error in a ModelError with the cause", async () => {
    const boom = new TypeError("socket hang up");
    const model = new TestModel(async function* () {
      yield aiMessageChunk("a");
      throw boom;
    });
    const error = await model.invoke(hi).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: "PROVIDER_ERROR", message: "test-model: socket hang up", cause: boom });
  });

  it("passes ModelErrors and the engine's GraphInterrupt through untouched", async () => {
    const own = new ModelError("RATE_LIMITED", "slow down");
    const pause = new GraphInterrupt([{ id: "i1", value: "ok?" }]);
    for (const thrown of [own, pause]) {
      const model = new TestModel(async function* () {
        throw thrown;
      });
      await expect(model.invoke(hi)).rejects.toBe(thrown);
    }
  });

  it("closes the provider's stream when the caller stops early", async () => {
    const model = new TestModel(() => chunksOf(aiMessageChunk("a"), aiMessageChunk("b"), aiMessageChunk("c")));
    for await (const chunk of model.stream(hi)) {
      expect(chunk.content).toBe("a");
      break;
    }
    expect(model.closed).toBe(1);
  });
});

describe("abort", () => {
  it("rejects at once even when the provider never yields again", async () => {
    const controller = new AbortController();
    let release: () => void = () => {};
    const model = new TestModel(async function* () {
      yield aiMessageChunk("a");
      await new Promise<void>((resolve) => (release = resolve)); // a stuck connection
      yield aiMessageChunk("never");
    });
    const seen: string[] = [];
    const pending = (async () => {
      for await (const chunk of model.stream(hi, { signal: controller.signal })) {
        seen.push(chunk.content);
        controller.abort();
      }
    })();
    await expect(pending).rejects.toMatchObject({ name: "AbortError", code: "ABORTED", retryable: false });
    expect(seen).toEqual(["a"]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    release();
    await expect.poll(() => model.closed).toBe(1);
  });

  it("passes the signal, tags and tool choice to the provider", async () => {
    const controller = new AbortController();
    const model = new TestModel(() => chunksOf(aiMessageChunk("x")), ["m"]);
    await model.invoke(hi, { signal: controller.signal, tags: ["c", "m"], toolChoice: { name: "f" } });
    expect(model.requests[0]).toEqual({ tools: [], tags: ["m", "c"], toolChoice: { name: "f" }, signal: controller.signal });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("bindTools", () => {
  const search = tool(async ({ q }: { q: string }) => q, {
    name: "search",
    description: "Search",
    schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  });
  const calc = tool(() => 0, { name: "calc", description: "", schema: { type: "object" } });

  it("offers the tools on every call of the bound model, and rebinding replaces them", async () => {
    const model = new TestModel(() => chunksOf(aiMessageChunk("x")));
    const bound = model.bindTools([search]);
    await bound.invoke(hi);
    await collect(bound.stream(hi));
    await bound.bindTools([calc]).invoke(hi);
    await model.invoke(hi);
    expect(model.requests.map((r) => r.tools.map((t) => t.name))).toEqual([["search"], ["search"], ["calc"], []]);
    expect(bound.name).toBe("test-model");
  });

  it("shares the model's state: a scripted script advances across bound views", async () => {
    const model = new ScriptedChatModel({ responses: ["1", "2"] });
    expect((await model.bindTools([search]).invoke(hi)).content).toBe("1");
    expect((await model.invoke(hi)).content).toBe("2");
  });

  it("refuses two tools with one name", () => {
    const model = new ScriptedChatModel({ responses: [] });
    expect(() => model.bindTools([search, search])).toThrow(/two tools are named "search"/);
  });

  it.each([
    ["an empty name", ""],
    ["a space", "my tool"],
    ["65 characters", "x".repeat(65)],
  ])("tool() refuses %s", (_label, name) => {
    expect(() => tool(() => 0, { name, description: "", schema: { type: "object" } })).toThrow(ModelError);
  });
});
