import { describe, expect, it } from "vitest";
import { COMMAND_METHODS, EVENT_METHODS, commandSchema, decodeCommand, encodeCommand, errorResponseOf, type CommandMethod } from "../../../hub/protocol/index.ts";
import { eventSchema } from "../../../hub/protocol/event-schema.ts";

/** One valid frame per method (extra fields included where the spec allows them). */
const VALID: Record<CommandMethod, unknown> = {
  "run.start": {
    id: 1,
    method: "run.start",
    params: { assistant_id: "agent", input: { messages: [] }, config: { recursion_limit: 5 }, multitask_strategy: "enqueue" },
  },
  "run.cancel": { id: 2, thread_id: "t1", method: "run.cancel", params: {} },
  "input.respond": { id: 3, method: "input.respond", params: { namespace: [], interrupt_id: "i1", response: { approve: true } } },
  "input.inject": { id: 4, method: "input.inject", params: { namespace: [], message: { role: "user", content: "hi" } } },
  "input.claim": { id: 5, thread_id: "t1", method: "input.claim", params: { interrupt_id: "i1", ttl_ms: 30000 } },
  "input.release": { id: 6, thread_id: "t1", method: "input.release", params: { interrupt_id: "i1" } },
  "input.reassign": { id: 6, thread_id: "t1", method: "input.reassign", params: { interrupt_id: "i1", queue: "legal", users: ["u_ada"], reason: "needs a lawyer" } },
  "subscription.subscribe": {
    id: 7,
    method: "subscription.subscribe",
    params: { channels: ["messages", "lifecycle", "custom:progress"], namespaces: [[], ["research"]], depth: 1 },
  },
  "subscription.unsubscribe": { id: 8, method: "subscription.unsubscribe", params: { subscription_id: "s1" } },
  "subscription.reconnect": {
    id: 9,
    method: "subscription.reconnect",
    params: { run_id: "r1", last_event_id: "e41", subscriptions: ["s1"] },
  },
  "queue.subscribe": { id: 10, method: "queue.subscribe", params: { queue: "legal-review" } },
  "queue.unsubscribe": { id: 11, method: "queue.unsubscribe", params: { subscription_id: "q1" } },
  "threads.subscribe": { id: 17, method: "threads.subscribe", params: { limit: 20 } },
  "threads.unsubscribe": { id: 18, method: "threads.unsubscribe", params: { subscription_id: "t_1" } },
  "agent.getTree": { id: 12, method: "agent.getTree", params: {} },
  "state.get": { id: 13, method: "state.get", params: { namespace: [], keys: ["messages"] } },
  "state.listCheckpoints": { id: 14, method: "state.listCheckpoints", params: { limit: 10, before: "cp9" } },
  "state.fork": { id: 15, method: "state.fork", params: { checkpoint_id: "cp3", input: null } },
  "presence.update": { id: 16, thread_id: "t1", method: "presence.update", params: { update: "AQID" } },
};

describe("decodeCommand", () => {
  it.each(COMMAND_METHODS.map((m) => [m]))("accepts a valid %s, from a value and from text", (method) => {
    const frame = VALID[method];
    const fromValue = decodeCommand(frame);
    expect(fromValue).toMatchObject({ ok: true, command: { method } });
    const fromText = decodeCommand(JSON.stringify(frame));
    expect(fromText).toEqual(fromValue);
    if (fromValue.ok) expect(decodeCommand(encodeCommand(fromValue.command))).toEqual(fromValue);
  });

  it("accepts the batch form of input.respond", () => {
    const result = decodeCommand({
      id: 1,
      method: "input.respond",
      params: { responses: [{ namespace: [], interrupt_id: "a", response: 1 }, { namespace: ["s:1"], interrupt_id: "b", response: false }] },
    });
    expect(result.ok).toBe(true);
  });

  it("keeps unknown (forward-compatible) fields", () => {
    const result = decodeCommand({ id: 1, method: "agent.getTree", params: { future: 1 }, trace: "x" });
    expect(result).toMatchObject({ ok: true, command: { params: { future: 1 }, trace: "x" } });
  });

  const BAD: Array<[string, unknown, { kind: string; code: string; id: number | null; path?: Array<string | number> }]> = [
    ["malformed JSON", '{"id": 1, "method": ', { kind: "malformed_json", code: "invalid_argument", id: null }],
    ["an array", "[1,2]", { kind: "not_an_object", code: "invalid_argument", id: null }],
    ["null", null, { kind: "not_an_object", code: "invalid_argument", id: null }],
    ["a number", 42, { kind: "not_an_object", code: "invalid_argument", id: null }],
    ["no id", { method: "agent.getTree", params: {} }, { kind: "missing_id", code: "invalid_argument", id: null }],
    ["a negative id", { id: -1, method: "agent.getTree", params: {} }, { kind: "missing_id", code: "invalid_argument", id: null }],
    ["a string id", { id: "1", method: "agent.getTree", params: {} }, { kind: "missing_id", code: "invalid_argument", id: null }],
    ["an unknown method", { id: 3, method: "run.explode", params: {} }, { kind: "unknown_method", code: "unknown_command", id: 3 }],
    ["no method", { id: 3, params: {} }, { kind: "unknown_method", code: "unknown_command", id: 3 }],
    ["no params", { id: 4, method: "state.get" }, { kind: "invalid_params", code: "invalid_argument", id: 4, path: ["params"] }],
    [
      "a missing required param",
      { id: 5, method: "run.start", params: { input: {} } },
      { kind: "invalid_params", code: "invalid_argument", id: 5, path: ["params", "assistant_id"] },
    ],
    [
      "an unknown channel",
      { id: 6, method: "subscription.subscribe", params: { channels: ["messages", "gossip"] } },
      { kind: "invalid_params", code: "invalid_argument", id: 6, path: ["params", "channels", 1] },
    ],
    [
      "a namespace that is not a string array",
      { id: 7, method: "state.get", params: { namespace: [1] } },
      { kind: "invalid_params", code: "invalid_argument", id: 7, path: ["params", "namespace", 0] },
    ],
    [
      "a bad multitask strategy",
      { id: 8, method: "run.start", params: { assistant_id: "a", input: null, multitask_strategy: "yolo" } },
      { kind: "invalid_params", code: "invalid_argument", id: 8, path: ["params", "multitask_strategy"] },
    ],
    [
      "presence that is not base64",
      { id: 9, method: "presence.update", params: { update: "not base64!" } },
      { kind: "invalid_params", code: "invalid_argument", id: 9, path: ["params", "update"] },
    ],
    [
      "an empty thread_id",
      { id: 10, thread_id: "", method: "run.cancel", params: {} },
      { kind: "invalid_params", code: "invalid_argument", id: 10, path: ["thread_id"] },
    ],
  ];

  it.each(BAD)("rejects %s with the right kind, code, id and path", (_name, frame, expected) => {
    const result = decodeCommand(frame);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject(expected);
    expect(result.error.message.length).toBeGreaterThan(0);
  });

  it("turns a decode failure into a spec ErrorResponse", () => {
    const result = decodeCommand({ id: 5, method: "run.start", params: {} });
    if (result.ok) throw new Error("expected a failure");
    expect(errorResponseOf(result.error, "t1")).toEqual({
      type: "error",
      id: 5,
      error: "invalid_argument",
      message: result.error.message,
      path: ["params", "assistant_id"],
      thread_id: "t1",
    });
  });
});

/** The extensions PROTOCOL.md documents are the schema's, not a handler's: refused at decode, with a path. */
describe("documented extension fields", () => {
  const start = (params: Record<string, unknown>) => decodeCommand({ id: 30, method: "run.start", params: { assistant_id: "a", input: null, ...params } });
  const subscribe = (params: Record<string, unknown>) => decodeCommand({ id: 31, method: "subscription.subscribe", params: { channels: ["values"], ...params } });
  const refused = (result: ReturnType<typeof decodeCommand>) => (result.ok ? "accepted" : { code: result.error.code, path: result.error.path });

  it.each([
    ["on_disconnect", { on_disconnect: "later" }, ["params", "on_disconnect"]],
    ["review_policy", { review_policy: "sometimes" }, ["params", "review_policy"]],
    ["multitask_strategy", { multitask_strategy: "queue" }, ["params", "multitask_strategy"]],
    ["the multitaskStrategy alias", { multitaskStrategy: "queue" }, ["params", "multitaskStrategy"]],
    ["an alias that contradicts the field", { multitask_strategy: "reject", multitaskStrategy: "enqueue" }, ["params", "multitaskStrategy"]],
  ])("run.start: a bad %s is invalid_argument at decode", (_what, params, path) => {
    expect(refused(start(params))).toEqual({ code: "invalid_argument", path });
  });

  it("run.start: the alias is handed over as multitask_strategy; the fields are typed", () => {
    const decoded = start({ multitaskStrategy: "interrupt", on_disconnect: "cancel", review_policy: "eager" });
    expect(decoded.ok && decoded.command.params).toEqual({ assistant_id: "a", input: null, multitask_strategy: "interrupt", on_disconnect: "cancel", review_policy: "eager" });
    const same = start({ multitaskStrategy: "enqueue", multitask_strategy: "enqueue" });
    expect(same.ok && same.command.params).toEqual({ assistant_id: "a", input: null, multitask_strategy: "enqueue" });
  });

  it.each([[-1], [1.5], ["3"], [null], [Number.MAX_SAFE_INTEGER + 2]])("subscription.subscribe: since %j is invalid_argument at decode", (since) => {
    expect(refused(subscribe({ since }))).toEqual({ code: "invalid_argument", path: ["params", "since"] });
  });

  it("subscription.subscribe: since is a typed seq", () => {
    const decoded = subscribe({ since: 41 });
    expect(decoded.ok && decoded.command.method === "subscription.subscribe" && decoded.command.params.since).toBe(41);
  });
});

describe("the discriminated unions are the method lists", () => {
  it("one command variant per COMMAND_METHODS entry, one event variant per EVENT_METHODS entry", () => {
    expect(commandSchema.options.map((o) => o.shape.method.value)).toEqual([...COMMAND_METHODS]);
    expect(eventSchema.options.map((o) => o.shape.method.value)).toEqual([...EVENT_METHODS]);
  });
});
