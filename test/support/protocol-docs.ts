/**
 * Event fixtures for the client's pure tests, all parsed with the real
 * event schema: the checked "translate, review, resume" sequence of
 * docs/PROTOCOL.md (numbered 1..N as the hub would) and a builder of single
 * events.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { decodeEvent, type EventMethod, type ProtocolEvent } from "../../hub/protocol/index.ts";

const PROTOCOL_MD = fileURLToPath(new URL("../../docs/PROTOCOL.md", import.meta.url));

/** Parses a raw event with the real schema; a fixture that does not parse fails the test. */
export function parsed(raw: unknown): ProtocolEvent {
  const decoded = decodeEvent(raw);
  if (!decoded.ok) throw new Error(`fixture does not parse: ${decoded.error.message}: ${JSON.stringify(raw)}`);
  return decoded.event;
}

/** The `translation-review` sequence, with seq / event_id 1..N added. */
export function translationSequence(): ProtocolEvent[] {
  const text = readFileSync(PROTOCOL_MD, "utf8");
  const match = /```json protocol-sequence translation-review\n([\s\S]*?)\n```/.exec(text);
  if (!match?.[1]) throw new Error("docs/PROTOCOL.md has no translation-review sequence");
  const raw: unknown = JSON.parse(match[1]);
  if (!Array.isArray(raw)) throw new Error("the sequence is not an array");
  return raw.map((e: unknown, i) => {
    if (typeof e !== "object" || e === null) throw new Error(`event ${i} is not an object`);
    return parsed({ ...e, seq: i + 1, event_id: String(i + 1) });
  });
}

export interface EventOptions {
  namespace?: string[];
  node?: string;
  seq?: number;
  thread_id?: string;
  run_id?: string;
  timestamp?: number;
}

/** One event of `method` with `data`, checked by the real schema. */
export function ev(method: EventMethod, data: unknown, o: EventOptions = {}): ProtocolEvent {
  return parsed({
    type: "event",
    method,
    ...(o.seq === undefined ? {} : { seq: o.seq, event_id: String(o.seq) }),
    thread_id: o.thread_id ?? "th_1",
    ...(o.run_id === undefined ? {} : { run_id: o.run_id }),
    params: { namespace: o.namespace ?? [], timestamp: o.timestamp ?? 1_767_225_600_000, ...(o.node === undefined ? {} : { node: o.node }), data },
  });
}

/** Numbers events seq = start, start+1, … (as the hub's thread log would). */
export function numbered(events: ProtocolEvent[], start = 1): ProtocolEvent[] {
  return events.map((e, i) => ({ ...e, seq: start + i, event_id: String(start + i) }));
}

/** A full text message: start, block start, deltas, block finish, message finish. */
export function textMessage(id: string, pieces: string[], o: EventOptions = {}): ProtocolEvent[] {
  const m = (data: Record<string, unknown>) => ev("messages", { ...data, run_id: id }, o);
  return [
    m({ event: "message-start", role: "ai", id }),
    m({ event: "content-block-start", index: 0, content: { type: "text", text: "" } }),
    ...pieces.map((text) => m({ event: "content-block-delta", index: 0, delta: { type: "text-delta", text } })),
    m({ event: "content-block-finish", index: 0, content: { type: "text", text: pieces.join("") } }),
    m({ event: "message-finish", reason: "stop" }),
  ];
}
