/** toolNode and toolsCondition: parallel calls, answers by tool_call_id, errors, interrupts, tool events. */
import { describe, expect, it } from "vitest";
import { END } from "../../../engine/constants.ts";
import { GraphInterrupt } from "../../../engine/errors.ts";
import { aiMessage, humanMessage, toolMessage } from "../../../engine/messages/index.ts";
import type { Message, ToolCall } from "../../../engine/messages/index.ts";
import { ModelError, tool, toolNode, toolsCondition } from "../../../engine/models/index.ts";
import type { Tool } from "../../../engine/models/index.ts";
import { recordingHost } from "./hook-host.ts";

const asking = (...calls: ToolCall[]): { messages: Message[] } => ({
  messages: [humanMessage("q"), aiMessage("", { tool_calls: calls })],
});

const add = tool(({ a, b }: { a: number; b: number }) => a + b, {
  name: "add",
  description: "Adds",
  schema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
    additionalProperties: false,
  },
});
const echo = tool(({ text }: { text?: unknown }) => text, {
  name: "echo",
  description: "Returns its input",
  schema: { type: "object", properties: { text: {} } },
});
const failing = tool(
  () => {
    throw new Error("disk full");
  },
  { name: "failing", description: "", schema: { type: "object" } },
);

describe("toolNode", () => {
  it("answers every call with a tool message carrying its tool_call_id, in call order", async () => {
    const node = toolNode([add, echo]);
    const { messages } = await node(
      asking({ id: "c1", name: "add", args: { a: 2, b: 0 } }, { id: "c2", name: "echo", args: { text: "hi" } }),
    );
    expect(messages).toEqual([
      toolMessage("2", { tool_call_id: "c1", name: "add", status: "success" }),
      toolMessage("hi", { tool_call_id: "c2", name: "echo", status: "success" }),
    ]);
  });

  it.each<[string, unknown, string]>([
    ["a string as is", "x", "x"],
    ["an empty string", "", ""],
    ["undefined as empty", undefined, ""],
    ["null as JSON", null, "null"],
    ["0 as JSON", 0, "0"],
    ["false as JSON", false, "false"],
    ["an object as JSON", { ok: true }, '{"ok":true}'],
  ])("turns %s into content", async (_label, text, content) => {
    const { messages } = await toolNode([echo])(asking({ id: "c", name: "echo", args: { text } }));
    expect(messages[0]?.content).toBe(content);
  });

  it("runs calls in parallel", async () => {
    let releaseFirst: () => void = () => {};
    const started: string[] = [];
    const waits = tool(
      async () => {
        started.push("waits");
        await new Promise<void>((resolve) => (releaseFirst = resolve));
        return "waited";
      },
      { name: "waits", description: "", schema: { type: "object" } },
    );
    const releases = tool(
      () => {
        started.push("releases");
        releaseFirst(); // only reachable if the first call has not blocked the second
        return "released";
      },
      { name: "releases", description: "", schema: { type: "object" } },
    );
    const { messages } = await toolNode([waits, releases])(
      asking({ id: "a", name: "waits", args: {} }, { id: "b", name: "releases", args: {} }),
    );
    expect(started).toEqual(["waits", "releases"]);
    expect(messages.map((m) => m.content)).toEqual(["waited", "released"]);
  });

  it("answers an unknown tool with an error message naming it", async () => {
    const { messages } = await toolNode([add])(asking({ id: "c", name: "nope", args: {} }));
    expect(messages).toEqual([
      { type: "tool", content: 'Error: tool "nope" does not exist (available: "add")', tool_call_id: "c", name: "nope", status: "error" },
    ]);
  });

  it.each([
    ["a missing required argument", { a: 1 }, /missing required argument "b"/],
    ["a wrong type", { a: 1, b: "2" }, /argument "b" must be of type number, got string/],
    ["an unknown argument", { a: 1, b: 2, c: 3 }, /unknown argument "c"/],
  ])("answers %s with an error message, without running the tool", async (_label, args, error) => {
    const { messages } = await toolNode([add])(asking({ id: "c", name: "add", args }));
    expect(messages[0]).toMatchObject({ status: "error", content: expect.stringMatching(error) });
  });

  it("turns a thrown error into an error message by default", async () => {
    const { messages } = await toolNode([failing, add])(
      asking({ id: "c1", name: "failing", args: {} }, { id: "c2", name: "add", args: { a: 1, b: 1 } }),
    );
    expect(messages).toEqual([
      toolMessage("Error: disk full", { tool_call_id: "c1", name: "failing", status: "error" }),
      toolMessage("2", { tool_call_id: "c2", name: "add", status: "success" }),
    ]);
  });

  it("rethrows a thrown error with handleErrors: false, after the other calls finished", async () => {
    let slowDone = false;
    const slow = tool(
      async () => {
        await new Promise((resolve) => setImmediate(resolve));
        slowDone = true;
        return "ok";
      },
      { name: "slow", description: "", schema: { type: "object" } },
    );
    const node = toolNode([failing, slow], { handleErrors: false });
    await expect(node(asking({ id: "c1", name: "failing", args: {} }, { id: "c2", name: "slow", args: {} }))).rejects.toThrow("disk full");
    expect(slowDone).toBe(true);
  });

  const pauses: Array<[string, () => unknown]> = [
    ["the engine's GraphInterrupt", () => new GraphInterrupt([{ id: "i1", value: "approve?" }])],
    ["an error named GraphInterrupt", () => Object.assign(new Error("pause"), { name: "GraphInterrupt" })],
    ["an object with isGraphInterrupt", () => ({ isGraphInterrupt: 1, interrupts: [] })],
  ];
  it.each(pauses)("always rethrows %s untouched, and reports no tool error", async (_label, make) => {
    const pause = make();
    const approval = tool(
      () => {
        throw pause;
      },
      { name: "approval", description: "", schema: { type: "object" } },
    );
    const rec = recordingHost();
    for (const handleErrors of [true, false]) {
      const node = toolNode([approval, failing], { handleErrors });
      // The failing call is handled or thrown, but the pause wins either way.
      const state = asking({ id: "c0", name: "failing", args: {} }, { id: "c1", name: "approval", args: {} });
      await expect(rec.run(() => node(state))).rejects.toBe(pause);
    }
    expect(rec.toolEvents.filter((e) => e[0] === "error" && e[1] === "c1")).toEqual([]);
  });

  it("answers calls whose arguments were not valid JSON", async () => {
    const state = {
      messages: [aiMessage("", { tool_calls: [], invalid_tool_calls: [{ id: "bad", name: "add", args: '{"a":', error: "arguments are not valid JSON" }] })],
    };
    expect(toolsCondition(state)).toBe("tools");
    const { messages } = await toolNode([add])(state);
    expect(messages).toEqual([
      toolMessage("Error: invalid tool call: arguments are not valid JSON", { tool_call_id: "bad", name: "add", status: "error" }),
    ]);
  });

  it("uses a ToolMessage a tool returns, pointed at the call", async () => {
    const custom = tool(() => toolMessage("partial", { tool_call_id: "wrong", status: "error" }), {
      name: "custom",
      description: "",
      schema: { type: "object" },
    });
    const { messages } = await toolNode([custom])(asking({ id: "c", name: "custom", args: {} }));
    expect(messages).toEqual([{ type: "tool", content: "partial", tool_call_id: "c", name: "custom", status: "error" }]);
  });

  it("passes the runtime's signal and the call to the tool", async () => {
    const seen: unknown[] = [];
    const spy: Tool = {
      name: "spy",
      description: "",
      schema: { type: "object" },
      invoke: (_args, ctx) => seen.push(ctx.signal, ctx.toolCall.id),
    };
    const controller = new AbortController();
    await toolNode([spy])(asking({ id: "c", name: "spy", args: {} }), { signal: controller.signal });
    expect(seen).toEqual([controller.signal, "c"]);
  });

  it("fails with NO_AI_MESSAGE when the last message is not an AI message", async () => {
    const node = toolNode([add]);
    await expect(node({ messages: [] })).rejects.toMatchObject({ code: "NO_AI_MESSAGE" });
    await expect(node({ messages: [humanMessage("x")] })).rejects.toThrow(ModelError);
  });

  it("returns no messages for an AI message without calls", async () => {
    expect(await toolNode([add])({ messages: [aiMessage("done")] })).toEqual({ messages: [] });
  });
});

describe("tool events", () => {
  it("reports start, output deltas, finish and errors through the run hooks", async () => {
    const streaming = tool(
      (_args, ctx) => {
        ctx.writeOutput("10%");
        ctx.writeOutput({ pct: 100 });
        return { rows: 2 };
      },
      { name: "streaming", description: "", schema: { type: "object" } },
    );
    const rec = recordingHost();
    await rec.run(() =>
      toolNode([streaming, failing])(
        asking({ id: "s", name: "streaming", args: { q: 1 } }, { id: "f", name: "failing", args: {} }, { id: "u", name: "ghost", args: {} }),
      ),
    );
    expect(rec.toolEvents).toEqual(
      expect.arrayContaining([
        ["started", { toolCallId: "s", name: "streaming", input: { q: 1 } }],
        ["delta", "s", "10%"],
        ["delta", "s", { pct: 100 }],
        ["finished", "s", '{"rows":2}'],
        ["started", { toolCallId: "f", name: "failing", input: {} }],
        ["error", "f", "disk full"],
        ["started", { toolCallId: "u", name: "ghost", input: {} }],
        ["error", "u", 'tool "ghost" does not exist (available: "streaming", "failing")'],
      ]),
    );
    expect(rec.toolEvents).toHaveLength(8);
  });

  it("runs the same without a run: writeOutput is a no-op", async () => {
    const streaming = tool(
      (_args, ctx) => {
        ctx.writeOutput("x");
        return "done";
      },
      { name: "streaming", description: "", schema: { type: "object" } },
    );
    const { messages } = await toolNode([streaming])(asking({ id: "s", name: "streaming", args: {} }));
    expect(messages[0]?.content).toBe("done");
  });
});

describe("toolsCondition", () => {
  it.each<[string, Message[], string]>([
    ["no messages", [], END],
    ["a human last", [humanMessage("x")], END],
    ["an AI message without calls", [aiMessage("done")], END],
    ["an AI message with empty content and no calls", [aiMessage("")], END],
    ["an AI message with calls", [aiMessage("", { tool_calls: [{ id: "c", name: "f", args: {} }] })], "tools"],
    ["a tool message last", [aiMessage("", { tool_calls: [{ id: "c", name: "f", args: {} }] }), toolMessage("r", { tool_call_id: "c" })], END],
    ["an invalid call without an id (cannot be answered)", [aiMessage("", { tool_calls: [], invalid_tool_calls: [{ args: "{", error: "e" }] })], END],
  ])("%s", (_label, messages, route) => {
    expect(toolsCondition({ messages })).toBe(route);
    expect(toolsCondition(messages)).toBe(route);
  });
});
