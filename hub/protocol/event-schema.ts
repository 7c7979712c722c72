/**
 * Runtime schemas of server -> client frames (events and responses), used by
 * clients through `decodeEvent` / `decodeServerMessage` and by the docs test.
 * Objects are loose: unknown fields pass through (the spec's `Extensible`).
 */
import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "./errors.ts";
import { threadRecordSchema } from "./rest.ts";
import { namespaceSchema } from "./schema.ts";
import { EVENT_METHODS, type ContentBlockDelta, type EventMethod } from "./types.ts";

const str = z.string();
const num = z.number();
const uint = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const record = z.record(z.string(), z.unknown());
const blockIndex = z.union([z.number().int(), z.string()]).optional();
const actor = z.looseObject({ sub: str, name: str });

// --- content blocks (spec §2) ---
const media = <T extends "image" | "audio" | "video" | "file">(type: T) =>
  z.looseObject({
    type: z.literal(type),
    id: str.optional(),
    file_id: str.optional(),
    url: str.optional(),
    base64: str.optional(),
    mime_type: str.optional(),
    index: blockIndex,
  });

const reasoningBlock = z.looseObject({ type: z.literal("reasoning"), reasoning: str.optional(), id: str.optional(), index: blockIndex });
const toolCall = z.looseObject({ type: z.literal("tool_call"), id: str.nullable(), name: str, args: record, index: blockIndex });
const toolCallChunk = z.looseObject({
  type: z.literal("tool_call_chunk"),
  id: str.nullable(),
  name: str.nullable(),
  args: str.nullable(),
  index: blockIndex,
});
const invalidToolCall = z.looseObject({
  type: z.literal("invalid_tool_call"),
  id: str.nullable(),
  name: str.nullable(),
  args: str.nullable(),
  error: str.nullable(),
  index: blockIndex,
});
const serverToolCall = z.looseObject({ type: z.literal("server_tool_call"), id: str, name: str, args: record, index: blockIndex });
const serverToolCallChunk = z.looseObject({
  type: z.literal("server_tool_call_chunk"),
  id: str.optional(),
  name: str.optional(),
  args: str.optional(),
  index: blockIndex,
});
const serverToolResult = z.looseObject({
  type: z.literal("server_tool_result"),
  tool_call_id: str,
  status: z.enum(["success", "error"]),
  id: str.optional(),
  output: z.unknown().optional(),
  index: blockIndex,
});
const nonStandard = z.looseObject({ type: z.literal("non_standard"), value: record, id: str.optional(), index: blockIndex });
const annotation = z.union([
  z.looseObject({
    type: z.literal("citation"),
    id: str.optional(),
    url: str.optional(),
    title: str.optional(),
    start_index: num.optional(),
    end_index: num.optional(),
    cited_text: str.optional(),
  }),
  z.looseObject({ type: z.literal("non_standard_annotation"), id: str.optional(), value: record }),
]);
// TextContentBlock's `type` is any string in 0.0.21; keep it last so the
// specific variants win.
const textBlock = z.looseObject({ type: str, text: str, id: str.optional(), index: blockIndex, annotations: z.array(annotation).optional() });

const finalizedBlock = z.union([
  reasoningBlock,
  toolCall,
  invalidToolCall,
  serverToolCall,
  serverToolResult,
  media("image"),
  media("audio"),
  media("video"),
  media("file"),
  nonStandard,
  textBlock,
]);
const contentBlock = z.union([toolCallChunk, serverToolCallChunk, finalizedBlock]);

const knownDelta = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text-delta"), text: str }),
  z.looseObject({ type: z.literal("reasoning-delta"), reasoning: str }),
  z.looseObject({ type: z.literal("data-delta"), data: str, encoding: z.literal("base64").optional() }),
  z.looseObject({ type: z.literal("block-delta"), fields: z.looseObject({ type: str }) }),
  z.looseObject({ type: z.literal("tool-call-delta"), args: str }),
]);
/** The content-block delta types this version of the protocol knows. */
export const KNOWN_DELTA_TYPES: ReadonlySet<string> = new Set(knownDelta.options.map((o) => o.shape.type.value));
/**
 * The spec (protocol.ts §2, ContentBlockDelta): "consumers MUST ignore a delta
 * whose type they do not recognise and keep processing the stream". So a delta
 * of a type this version does not know decodes (consumers skip it: the client's
 * applyDelta leaves the block as it was), while a known type must still be well formed.
 */
const unknownDelta = z
  .looseObject({
    type: str.refine((type) => !KNOWN_DELTA_TYPES.has(type), { message: "malformed delta of a known type" }),
  })
  // The spec's TypeScript union is closed although its text is not: pass such a
  // delta on as one, for consumers that switch on `type` with a default branch.
  .transform((d) => d as unknown as ContentBlockDelta);
const delta = z.union([knownDelta, unknownDelta]);

const scalar = z.union([z.null(), z.boolean(), z.number(), z.string()]);

const messagesData = z.discriminatedUnion("event", [
  z.looseObject({
    event: z.literal("message-start"),
    role: z.enum(["ai", "human", "system"]),
    id: str,
    metadata: z.record(z.string(), scalar).optional(),
  }),
  z.looseObject({ event: z.literal("content-block-start"), index: num, content: contentBlock }),
  z.looseObject({ event: z.literal("content-block-delta"), index: num, delta }),
  z.looseObject({ event: z.literal("content-block-finish"), index: num, content: finalizedBlock }),
  z.looseObject({ event: z.literal("message-finish"), usage: record.optional() }),
  z.looseObject({ event: z.literal("error"), message: str, code: str.optional() }),
]);

const toolsData = z.discriminatedUnion("event", [
  z.looseObject({ event: z.literal("tool-started"), tool_call_id: str, tool_name: str, input: z.unknown().optional() }),
  z.looseObject({ event: z.literal("tool-output-delta"), tool_call_id: str, delta: str }),
  z.looseObject({ event: z.literal("tool-finished"), tool_call_id: str, output: z.unknown() }),
  z.looseObject({ event: z.literal("tool-error"), tool_call_id: str, message: str, code: str.optional() }),
]);

const lifecycleCause = z.union([
  z.looseObject({ type: z.literal("toolCall"), tool_call_id: str }),
  z.looseObject({ type: z.literal("send"), from_node: str }),
  z.looseObject({ type: z.literal("edge"), from_node: str }),
]);

const lifecycleData = z.looseObject({
  event: z.enum(["started", "running", "completed", "failed", "interrupted"]),
  cancelled: z.literal(true).optional(),
  taken_over: z.literal(true).optional(),
  node_id: str.optional(),
  previous_node_id: str.optional(),
  graph_name: str.optional(),
  cause: lifecycleCause.optional(),
  error: str.optional(),
  checkpoint: z.looseObject({ id: str, ns: str.optional() }).optional(),
});

const customData = z.looseObject({ name: str.optional(), payload: z.unknown() });

const pendingInterrupt = z.looseObject({ interrupt_id: str, namespace: namespaceSchema, node: str.optional(), payload: z.unknown() });

/** Data schema of each fixed event method. */
const dataByMethod = {
  lifecycle: lifecycleData,
  messages: messagesData,
  tools: toolsData,
  "input.requested": z.looseObject({ interrupt_id: str, payload: z.unknown() }),
  "input.answered": z.looseObject({ interrupt_ids: z.array(str), answered_by: actor.optional(), answered_at: num.optional() }),
  values: record,
  updates: z.looseObject({ node: str.optional(), values: record }),
  checkpoints: z.looseObject({
    id: str,
    parent_id: str.optional(),
    step: z.number().int(),
    source: z.enum(["input", "loop", "update", "fork"]),
  }),
  tasks: z.looseObject({
    id: str,
    name: str,
    input: z.unknown().optional(),
    triggers: z.array(str).optional(),
    error: str.nullable().optional(),
    result: record.nullable().optional(),
    interrupts: z.array(z.looseObject({ id: str, value: z.unknown() })).optional(),
  }),
  custom: customData,
  "input.claimed": z.looseObject({ interrupt_id: str, claimed_by: actor, expires_at: num }),
  "input.released": z.looseObject({ interrupt_id: str, released_by: actor }),
  "input.expired": z.looseObject({ interrupt_id: str, expired_at: num, action: z.enum(["default_response", "deny", "cancel", "none"]), reason: str.optional() }),
  "input.cancelled": z.looseObject({ interrupt_id: str, cancelled_at: num, reason: str }),
  "input.escalated": z.looseObject({
    interrupt_id: str,
    step: uint,
    steps: uint,
    queue: str,
    users: z.array(str),
    roles: z.array(str),
    from: z.looseObject({ queue: str, users: z.array(str), roles: z.array(str) }),
    escalated_at: num,
  }),
  "input.reminder": z.looseObject({ interrupt_id: str, reminder: uint, max: uint, reminded_at: num, expires_at: num.nullable(), overdue: z.boolean() }),
  "input.voted": z.looseObject({
    interrupt_id: str,
    by: actor,
    verdict: z.enum(["approve", "reject"]),
    outcome: z.enum(["pending", "stage_approved", "approved", "rejected"]),
    progress: z.looseObject({
      approved: uint,
      rejected: uint,
      required: uint,
      approvers: z.array(str),
      rejecters: z.array(str),
      stage: uint,
      stages: uint,
      stage_name: str.nullable(),
    }),
  }),
  "input.reassigned": z.looseObject({
    interrupt_id: str,
    by: actor,
    from: z.looseObject({ queue: str, users: z.array(str), roles: z.array(str) }),
    to: z.looseObject({ queue: str, users: z.array(str), roles: z.array(str) }),
    delegated: z.boolean(),
    reason: str.optional(),
  }),
  presence: z.looseObject({ update: z.base64(), queue: str.optional() }),
  "thread.status": threadRecordSchema.extend({ deleted: z.literal(true).optional() }),
  resync: z.looseObject({
    reason: z.enum(["evicted", "unknown_event_id", "run_mismatch"]),
    head_seq: uint,
    snapshot: z.looseObject({
      values: record.nullable(),
      interrupts: z.array(pendingInterrupt),
      run: z.looseObject({
        run_id: str.nullable(),
        status: z.enum(["idle", "started", "running", "completed", "failed", "interrupted", "cancelled"]),
      }),
    }),
  }),
} as const satisfies Record<EventMethod, z.ZodType>;

type FixedMethod = keyof typeof dataByMethod;

const envelope = {
  type: z.literal("event"),
  event_id: str.optional(),
  seq: uint.optional(),
  thread_id: str.optional(),
  run_id: str.optional(),
  run_seq: uint.optional(),
  queue: str.optional(),
};

const paramsShape = { namespace: namespaceSchema, timestamp: num, node: str.optional() };

function eventVariant<M extends FixedMethod>(method: M) {
  return z.looseObject({
    ...envelope,
    method: z.literal(method),
    params: z.looseObject({ ...paramsShape, data: dataByMethod[method] }),
  });
}

type EventVariant = { [M in FixedMethod]: ReturnType<typeof eventVariant<M>> }[FixedMethod];

/** Every event, discriminated by `method`, derived from EVENT_METHODS (dataByMethod has one schema per method). */
export const eventSchema = z.discriminatedUnion("method", EVENT_METHODS.map((method) => eventVariant(method)) as unknown as [EventVariant, ...EventVariant[]]);

export const EVENT_METHOD_SET: ReadonlySet<string> = new Set(Object.keys(dataByMethod));

const errorCodeSchema = z.custom<ErrorCode>((value) => typeof value === "string" && Object.hasOwn(ERROR_CODES, value), {
  message: "unknown error code",
});

const meta = z.looseObject({ applied_through_seq: uint.optional() }).optional();

export const responseSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("success"), id: uint, thread_id: str.optional(), result: record, meta }),
  z.looseObject({
    type: z.literal("error"),
    id: uint.nullable(),
    thread_id: str.optional(),
    error: errorCodeSchema,
    message: str,
    stacktrace: str.optional(),
    path: z.array(z.union([str, z.number()])).optional(),
    details: record.optional(),
    winner: actor.optional(),
    answered_at: num.optional(),
    meta,
  }),
]);
