/**
 * Encoding of server frames (encode once, send the same string to every
 * subscriber) and their schema-checked decoding for clients.
 */
import type { ErrorCode, ProtocolError } from "./errors.ts";
import { EVENT_METHOD_SET, eventSchema, responseSchema } from "./event-schema.ts";
import { issuePath } from "./schema.ts";
import type { ErrorResponse, ProtocolEvent, ProtocolResponse, ServerMessage } from "./types.ts";

export function encodeEvent(event: ProtocolEvent): string {
  return JSON.stringify(event);
}

export function encodeResponse(response: ProtocolResponse): string {
  return JSON.stringify(response);
}

/** The error reply for a frame refused by decodeCommand. */
export function errorResponseOf(error: ProtocolError, threadId?: string): ErrorResponse {
  return {
    type: "error",
    id: error.id,
    error: error.code,
    message: error.message,
    ...(error.path === undefined ? {} : { path: error.path }),
    ...(threadId === undefined ? {} : { thread_id: threadId }),
  };
}

/** Builds an error reply for a command that was decoded but failed. */
export function errorResponse(id: number | null, code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorResponse {
  return { type: "error", id, error: code, message, ...(details === undefined ? {} : { details }) };
}

type Decoded<T> = { ok: true; value: T } | { ok: false; error: ProtocolError };

function parseFrame(raw: unknown): Decoded<Record<string, unknown>> {
  let frame: unknown = raw;
  if (typeof raw === "string") {
    try {
      frame = JSON.parse(raw);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return { ok: false, error: { kind: "malformed_json", code: "invalid_argument", message: `frame is not valid JSON: ${detail}`, id: null } };
    }
  }
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) {
    return { ok: false, error: { kind: "not_an_object", code: "invalid_argument", message: "a frame must be a JSON object", id: null } };
  }
  return { ok: true, value: { ...frame } };
}

function invalid(message: string, path: readonly PropertyKey[]): { ok: false; error: ProtocolError } {
  const p = issuePath(path);
  return { ok: false, error: { kind: "invalid_params", code: "invalid_argument", message: `${p.join(".") || "frame"}: ${message}`, id: null, path: p } };
}

export type DecodeEventResult = { ok: true; event: ProtocolEvent } | { ok: false; error: ProtocolError };

/** Parses one event frame (text or value) with the event schemas. */
export function decodeEvent(raw: unknown): DecodeEventResult {
  const frame = parseFrame(raw);
  if (!frame.ok) return frame;
  const method = frame.value["method"];
  if (typeof method !== "string" || !EVENT_METHOD_SET.has(method)) {
    const shown = typeof method === "string" ? `"${method}"` : "missing";
    return { ok: false, error: { kind: "unknown_method", code: "unknown_command", message: `unknown event method: ${shown}`, id: null, path: ["method"] } };
  }
  const parsed = eventSchema.safeParse(frame.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalid(issue?.message ?? "invalid value", issue?.path ?? []);
  }
  return { ok: true, event: parsed.data };
}

export type DecodeResponseResult = { ok: true; response: ProtocolResponse } | { ok: false; error: ProtocolError };

export function decodeResponse(raw: unknown): DecodeResponseResult {
  const frame = parseFrame(raw);
  if (!frame.ok) return frame;
  const parsed = responseSchema.safeParse(frame.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalid(issue?.message ?? "invalid value", issue?.path ?? []);
  }
  return { ok: true, response: parsed.data };
}

export type DecodeServerMessageResult = { ok: true; message: ServerMessage } | { ok: false; error: ProtocolError };

/** Clients: one entry point for every frame the server sends. */
export function decodeServerMessage(raw: unknown): DecodeServerMessageResult {
  const frame = parseFrame(raw);
  if (!frame.ok) return frame;
  if (frame.value["type"] === "event") {
    const event = decodeEvent(frame.value);
    return event.ok ? { ok: true, message: event.event } : event;
  }
  const response = decodeResponse(frame.value);
  return response.ok ? { ok: true, message: response.response } : response;
}
