import type { Command as SpecCommand, Message as SpecMessage } from "@langchain/protocol";
import { describe, expect, it } from "vitest";
import {
  CLOSE_CODES,
  ERROR_CODES,
  SwitchboardError,
  decodeEvent,
  decodeResponse,
  decodeServerMessage,
  encodeEvent,
  encodeResponse,
  errorResponse,
  httpStatusOf,
  matchesSubscription,
  type ProtocolCommand,
  type ProtocolEvent,
  type ProtocolResponse,
} from "../../../hub/protocol/index.ts";

const event = (method: string, data: unknown, namespace: string[] = []) => ({
  type: "event",
  seq: 7,
  event_id: "e7",
  method,
  params: { namespace, timestamp: 1710000000000, data },
});

describe("event and response codec", () => {
  it("encodes once and decodes back to the same event", () => {
    const original: ProtocolEvent = {
      type: "event",
      seq: 1,
      thread_id: "t",
      method: "input.answered",
      params: { namespace: [], timestamp: 1, data: { interrupt_ids: ["i1"], answered_by: { sub: "u1", name: "Ada" }, answered_at: 2 } },
    };
    const text = encodeEvent(original);
    expect(decodeEvent(text)).toEqual({ ok: true, event: original });
  });

  it.each([
    ["not JSON", "{", "malformed_json"],
    ["an unknown method", event("gossip", {}), "unknown_method"],
    ["a lifecycle status outside the spec", event("lifecycle", { event: "cancelled" }), "invalid_params"],
    ["a message event of unknown kind", event("messages", { event: "message-middle" }), "invalid_params"],
    ["a delta of a known type without its field", event("messages", { event: "content-block-delta", index: 0, delta: { type: "text-delta" } }), "invalid_params"],
    ["a delta without a type", event("messages", { event: "content-block-delta", index: 0, delta: { text: "x" } }), "invalid_params"],
    ["a namespace of numbers", event("values", {}, [1] as unknown as string[]), "invalid_params"],
    ["a tools event without tool_call_id", event("tools", { event: "tool-finished", output: 1 }), "invalid_params"],
  ])("decodeEvent rejects %s", (_name, raw, kind) => {
    const result = decodeEvent(typeof raw === "string" ? raw : JSON.stringify(raw));
    expect(result).toMatchObject({ ok: false, error: { kind } });
  });

  it("decodes a delta of a type it does not know, as the spec requires (consumers ignore it and go on)", () => {
    const future = event("messages", { event: "content-block-delta", index: 0, delta: { type: "citation-delta", citation: { url: "u" } } });
    expect(decodeEvent(JSON.stringify(future))).toMatchObject({
      ok: true,
      event: { method: "messages", params: { data: { delta: { type: "citation-delta", citation: { url: "u" } } } } },
    });
  });

  it("decodes responses and routes server messages by type", () => {
    const ok: ProtocolResponse = { type: "success", id: 1, result: { run_id: "r1" }, meta: { applied_through_seq: 4 } };
    const err: ProtocolResponse = errorResponse(2, "already_answered", "answered by Ada", { answered_by: { sub: "u1", name: "Ada" } });
    expect(decodeResponse(encodeResponse(ok))).toEqual({ ok: true, response: ok });
    expect(decodeServerMessage(encodeResponse(err))).toEqual({ ok: true, message: err });
    expect(decodeServerMessage(JSON.stringify(event("values", { a: 1 })))).toMatchObject({ ok: true, message: { method: "values" } });
    expect(decodeResponse({ type: "error", id: 1, error: "no_such_code", message: "x" })).toMatchObject({ ok: false });
  });

  it("matches subscriptions like the official SDK", () => {
    const custom: ProtocolEvent = {
      type: "event",
      method: "custom",
      params: { namespace: ["research:abc", "search:def"], timestamp: 1, data: { name: "progress", payload: 1 } },
    };
    expect(matchesSubscription(custom, { channels: ["custom"] })).toBe(true);
    expect(matchesSubscription(custom, { channels: ["custom:progress"] })).toBe(true);
    expect(matchesSubscription(custom, { channels: ["custom:other"] })).toBe(false);
    // a filter segment without ":" matches "node:taskId"
    expect(matchesSubscription(custom, { channels: ["custom"], namespaces: [["research"]] })).toBe(true);
    expect(matchesSubscription(custom, { channels: ["custom"], namespaces: [["research:zzz"]] })).toBe(false);
    expect(matchesSubscription(custom, { channels: ["custom"], namespaces: [["research"]], depth: 0 })).toBe(false);
    expect(matchesSubscription(custom, { channels: ["custom"], namespaces: [[]], depth: 2 })).toBe(true);
  });
});

describe("error codes", () => {
  it("close codes are 4000 + the HTTP status of the same condition", () => {
    for (const [reason, code] of Object.entries(CLOSE_CODES)) {
      expect(code).toBe(4000 + httpStatusOf(reason as keyof typeof CLOSE_CODES));
    }
  });

  it("every code has a status, a retryable flag and a description", () => {
    for (const info of Object.values(ERROR_CODES)) {
      expect(info.status).toBeGreaterThanOrEqual(400);
      expect(typeof info.retryable).toBe("boolean");
      expect(info.description.length).toBeGreaterThan(10);
    }
    expect(new SwitchboardError("thread_busy", "busy").retryable).toBe(true);
    expect(new SwitchboardError("already_answered", "no").retryable).toBe(false);
  });
});

// Compile-time: Switchboard frames stay valid @langchain/protocol frames.
type Spec<T extends SpecMessage> = T;
export type EventsAreSpecMessages = Spec<Exclude<ProtocolEvent, { method: "input.claimed" | "input.released" | "input.expired" | "input.cancelled" | "input.escalated" | "input.reminder" | "input.voted" | "input.reassigned" | "presence" | "thread.status" | "resync" }>>;
export type ResponsesAreSpecMessages = Spec<Exclude<ProtocolResponse, { error: string }>>;
type SpecCmd<T extends SpecCommand> = T;
export type CommandsAreSpecCommands = SpecCmd<
  Exclude<ProtocolCommand, { method: "run.cancel" | "input.claim" | "input.release" | "input.reassign" | "queue.subscribe" | "queue.unsubscribe" | "threads.subscribe" | "threads.unsubscribe" | "presence.update" }>
>;
