/**
 * Builders of synthetic engine stream parts, a projector runner that checks
 * every event against the real event schema, and a checker of the messages
 * content-block lifecycle.
 */
import { expect } from "vitest";
import type { MessageMetadata, StreamPart } from "../../engine/stream/types.ts";
import { decodeEvent, type ProtocolEvent } from "../../hub/protocol/index.ts";
import { createProjector, type RunOutcome } from "../../hub/runs/projection.ts";

export const THREAD = "thread-1";
export const RUN = "run-1";

export function meta(node: string, taskId = `${node}-task`, extra: Partial<MessageMetadata> = {}): MessageMetadata {
  return {
    threadId: THREAD,
    runId: RUN,
    node,
    step: 1,
    triggers: [],
    path: [],
    checkpointNs: "",
    taskId,
    tags: [],
    ...extra,
  };
}

export interface ChunkFields {
  id?: string;
  content?: string;
  reasoning?: string;
  tool_call_chunks?: Array<{ index: number; id?: string; name?: string; args?: string }>;
  usage?: { input_tokens: number; output_tokens: number; total_tokens: number };
  finish_reason?: string;
  last?: boolean;
}

export function chunk(ns: string[], node: string, fields: ChunkFields, taskId?: string): StreamPart {
  const { last, content, ...rest } = fields;
  const data = { type: "ai_chunk", content: content ?? "", ...rest, ...(last ? { chunk_position: "last" } : {}) };
  return { type: "messages", ns, data: [data, meta(node, taskId)] };
}

export function taskStart(ns: string[], name: string, id: string): StreamPart {
  return { type: "tasks", ns, data: { id, name, input: {}, triggers: [] } };
}

export function taskResult(
  ns: string[],
  name: string,
  id: string,
  fields: { error?: string; interrupts?: Array<{ id: string; value: unknown }>; result?: Record<string, unknown> } = {},
): StreamPart {
  return {
    type: "tasks",
    ns,
    data: { id, name, error: fields.error ?? null, result: fields.result ?? {}, interrupts: fields.interrupts ?? [] },
  };
}

/** Runs parts through a projector (clock = 1000, 1001, ...) and schema-checks every event. */
export function project(parts: StreamPart[], outcome?: RunOutcome): ProtocolEvent[] {
  let clock = 1000;
  const projector = createProjector({ threadId: THREAD, runId: RUN, now: () => clock++ });
  const events = parts.flatMap((part) => projector.push(part));
  if (outcome) events.push(...projector.finish(outcome));
  for (const event of events) {
    const decoded = decodeEvent(JSON.stringify(event));
    if (!decoded.ok) throw new Error(`projected event fails the schema: ${decoded.error.message}\n${JSON.stringify(event)}`);
  }
  expect(events.map((e) => e.run_seq)).toEqual(events.map((_, i) => i + 1));
  return events;
}

export const ofMethod = <M extends ProtocolEvent["method"]>(events: ProtocolEvent[], method: M) =>
  events.filter((e): e is Extract<ProtocolEvent, { method: M }> => e.method === method);

/** `"ns|event"` lines for lifecycle events, root as "/". */
export function lifecycleTrail(events: ProtocolEvent[]): string[] {
  return ofMethod(events, "lifecycle").map((e) => `${e.params.namespace.join("/") || "/"} ${e.params.data.event}`);
}

/** Compact trail of messages events: "start", "block-start 0 text", "delta 0", "block-finish 0", "finish". */
export function messageTrail(events: ProtocolEvent[], filter: (e: ProtocolEvent) => boolean = () => true): string[] {
  return ofMethod(events, "messages")
    .filter(filter)
    .map((e) => {
      const d = e.params.data;
      switch (d.event) {
        case "message-start":
          return "start";
        case "content-block-start":
          return `block-start ${d.index} ${d.content.type}`;
        case "content-block-delta":
          return `delta ${d.index} ${d.delta.type}`;
        case "content-block-finish":
          return `block-finish ${d.index} ${d.content.type}`;
        case "message-finish":
          return "finish";
        case "error":
          return `error ${d.code ?? ""}`.trim();
        default:
          return "unknown";
      }
    });
}

/**
 * Asserts the spec's lifecycle per message (keyed by data.run_id = message
 * id): start first; one open block at a time; indexes 0,1,2...; every block
 * finished before the next starts and before message-finish; nothing after
 * the end.
 */
export function checkMessageLifecycle(events: ProtocolEvent[]): void {
  const state = new Map<string, { open: number | null; next: number; ended: boolean }>();
  for (const event of ofMethod(events, "messages")) {
    const d = event.params.data;
    const key = String(d["run_id"]);
    if (d.event === "message-start") {
      expect(state.has(key), `message ${key} started twice`).toBe(false);
      state.set(key, { open: null, next: 0, ended: false });
      continue;
    }
    const s = state.get(key);
    expect(s, `event before message-start for ${key}`).toBeDefined();
    if (!s) return;
    expect(s.ended, `event after the end of ${key}`).toBe(false);
    switch (d.event) {
      case "content-block-start":
        expect(s.open, `block ${d.index} starts while ${s.open} is open`).toBeNull();
        expect(d.index).toBe(s.next);
        s.open = d.index;
        s.next++;
        break;
      case "content-block-delta":
        expect(d.index).toBe(s.open);
        break;
      case "content-block-finish":
        expect(d.index).toBe(s.open);
        s.open = null;
        break;
      case "message-finish":
        expect(s.open, "message-finish with an open block").toBeNull();
        s.ended = true;
        break;
      case "error":
        s.ended = true;
        break;
      default:
        break;
    }
  }
  for (const [key, s] of state) expect(s.ended, `message ${key} never ended`).toBe(true);
}
