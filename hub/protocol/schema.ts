/**
 * The one runtime schema for inbound command frames, shared by the WebSocket,
 * SSE and HTTP transports. `decodeCommand` parses from `unknown` (or raw
 * text) and returns a typed command or a typed ProtocolError — never throws.
 *
 * Params are loose objects: unknown keys pass through, as the spec's
 * `Extensible` asks, so a newer client is not refused for an extra field.
 */
import { z } from "zod";
import type { ProtocolError } from "./errors.ts";
import { DEFAULT_MAX_JSON_DEPTH, jsonDepthExceeds, tooDeepMessage } from "./json-limits.ts";
import { COMMAND_METHODS, type CommandMethod, type ProtocolCommand } from "./types.ts";
import { isRecord } from "./is-record.ts";

/** The most threads a `threads.subscribe` snapshot lists (and `GET /threads` returns). */
export const THREADS_SNAPSHOT_MAX = 200;

const str = z.string();
const nonEmpty = z.string().min(1);
const uint = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const record = z.record(z.string(), z.unknown());

export const namespaceSchema = z.array(z.string());

const CHANNELS = ["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom"] as const;
export const channelSchema = z.union([z.enum(CHANNELS), z.templateLiteral(["custom:", z.string().min(1)])]);

const runSend = z.looseObject({ node: nonEmpty, input: z.unknown().optional() });
const gotoSchema = z.union([nonEmpty, runSend, z.array(z.union([nonEmpty, runSend]))]);

const resumeExtras = {
  update: record.optional(),
  goto: gotoSchema.optional(),
  config: record.optional(),
  metadata: record.optional(),
};

/** Extension `payload_digest`: the item's digest as the answerer saw it; another current one refuses the answer (`stale_payload`). */
const payloadDigestSchema = z.string().regex(/^[0-9a-f]{64}$/, "must be the item's payload_digest: 64 lowercase hex digits");
const respondEntry = z.looseObject({ namespace: namespaceSchema, interrupt_id: nonEmpty, response: z.unknown(), payload_digest: payloadDigestSchema.optional() });
const candidateName = z.string().trim().min(1).max(200);

const multitaskStrategy = z.enum(["reject", "enqueue", "interrupt", "rollback"]);

/**
 * `run.start`. The SDK sends the strategy as `multitaskStrategy`: the alias is
 * checked here like the field, refused when it contradicts
 * `multitask_strategy`, and handed over as `multitask_strategy` only.
 */
const runStartParams = z
  .looseObject({
    assistant_id: nonEmpty,
    input: z.unknown(),
    config: record.optional(),
    metadata: record.optional(),
    langsmith_tracer: z.looseObject({ project_name: str.optional(), example_id: str.optional() }).optional(),
    multitask_strategy: multitaskStrategy.optional(),
    multitaskStrategy: multitaskStrategy.optional(),
    on_disconnect: z.enum(["continue", "cancel"]).optional(),
    review_policy: z.enum(["batch", "eager"]).optional(),
  })
  .refine((p) => p.multitask_strategy === undefined || p.multitaskStrategy === undefined || p.multitask_strategy === p.multitaskStrategy, {
    message: "multitask_strategy and multitaskStrategy disagree; send one",
    path: ["multitaskStrategy"],
  })
  .transform(({ multitaskStrategy: alias, ...params }) => {
    const strategy = params.multitask_strategy ?? alias;
    return strategy === undefined ? params : { ...params, multitask_strategy: strategy };
  });

const paramsByMethod = {
  "run.start": runStartParams,
  "run.cancel": z.looseObject({ run_id: nonEmpty.optional() }),
  "input.respond": z.union([
    z.looseObject({ ...respondEntry.shape, ...resumeExtras }),
    z.looseObject({ responses: z.array(respondEntry).min(1), ...resumeExtras }),
  ]),
  "input.inject": z.looseObject({
    namespace: namespaceSchema,
    message: z.looseObject({ role: z.enum(["user", "system"]), content: str, name: str.optional() }),
  }),
  "input.claim": z.looseObject({ interrupt_id: nonEmpty, ttl_ms: z.number().int().positive().optional() }),
  "input.release": z.looseObject({ interrupt_id: nonEmpty }),
  "input.reassign": z.looseObject({
    interrupt_id: nonEmpty,
    queue: candidateName.refine((q) => q !== "*", { message: '"*" is reserved (it subscribes to every queue)' }).optional(),
    users: z.array(candidateName).max(1000).optional(),
    roles: z.array(candidateName).max(100).optional(),
    reason: z.string().max(1000).optional(),
  }),
  "subscription.subscribe": z.looseObject({
    channels: z.array(channelSchema).min(1),
    namespaces: z.array(namespaceSchema).optional(),
    depth: uint.optional(),
    /** Extension: a seq; the replay is exactly what came after it. */
    since: uint.optional(),
  }),
  "subscription.unsubscribe": z.looseObject({ subscription_id: nonEmpty }),
  "subscription.reconnect": z.looseObject({
    run_id: nonEmpty,
    last_event_id: str.optional(),
    subscriptions: z.array(nonEmpty).optional(),
  }),
  "queue.subscribe": z.looseObject({ queue: nonEmpty }),
  "queue.unsubscribe": z.looseObject({ subscription_id: nonEmpty }),
  "threads.subscribe": z.looseObject({ limit: z.number().int().min(1).max(THREADS_SNAPSHOT_MAX).optional() }),
  "threads.unsubscribe": z.looseObject({ subscription_id: nonEmpty }),
  "agent.getTree": z.looseObject({ run_id: nonEmpty.optional() }),
  "state.get": z.looseObject({ namespace: namespaceSchema, keys: z.array(str).optional() }),
  "state.listCheckpoints": z.looseObject({
    namespace: namespaceSchema.optional(),
    limit: z.number().int().positive().optional(),
    before: str.optional(),
  }),
  "state.fork": z.looseObject({ checkpoint_id: nonEmpty, input: z.unknown().optional(), config: record.optional() }),
  "presence.update": z.looseObject({ update: z.base64(), queue: nonEmpty.optional() }),
} as const satisfies Record<CommandMethod, z.ZodType>;

function commandVariant<M extends CommandMethod>(method: M) {
  return z.looseObject({
    id: uint,
    thread_id: nonEmpty.optional(),
    method: z.literal(method),
    params: paramsByMethod[method],
  });
}

type CommandVariant = { [M in CommandMethod]: ReturnType<typeof commandVariant<M>> }[CommandMethod];

/**
 * Every command, discriminated by `method`, derived from COMMAND_METHODS (a
 * method there without params here, or the other way round, breaks the
 * build: paramsByMethod `satisfies Record<CommandMethod, …>`).
 */
export const commandSchema = z.discriminatedUnion("method", COMMAND_METHODS.map((method) => commandVariant(method)) as unknown as [CommandVariant, ...CommandVariant[]]);

export type DecodeCommandResult = { ok: true; command: ProtocolCommand } | { ok: false; error: ProtocolError };

const METHODS: ReadonlySet<string> = new Set(COMMAND_METHODS);


/** Converts a zod issue path to the JSON-safe path carried by an error reply. */
export function issuePath(path: readonly PropertyKey[]): Array<string | number> {
  return path.map((key) => (typeof key === "number" ? key : String(key)));
}

/**
 * Parses one inbound command. Accepts the frame's text (WS message, HTTP body)
 * or an already-parsed value. Checks, in order: depth (on the text, before
 * parsing), JSON, object, id, method, params.
 */
export function decodeCommand(raw: unknown, maxDepth = DEFAULT_MAX_JSON_DEPTH): DecodeCommandResult {
  let frame: unknown = raw;
  if (typeof raw === "string") {
    if (jsonDepthExceeds(raw, maxDepth)) return fail({ kind: "too_deep", code: "invalid_argument", message: tooDeepMessage(maxDepth), id: null });
    try {
      frame = JSON.parse(raw);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return fail({ kind: "malformed_json", code: "invalid_argument", message: `frame is not valid JSON: ${detail}`, id: null });
    }
  }
  if (!isRecord(frame)) {
    return fail({ kind: "not_an_object", code: "invalid_argument", message: "a command must be a JSON object", id: null });
  }
  const id = uint.safeParse(frame["id"]);
  if (!id.success) {
    const message = frame["id"] === undefined ? "command has no id" : "command id must be a non-negative safe integer";
    return fail({ kind: "missing_id", code: "invalid_argument", message, id: null });
  }
  const method = frame["method"];
  if (typeof method !== "string" || !METHODS.has(method)) {
    const shown = typeof method === "string" ? `"${method}"` : "missing";
    return fail({ kind: "unknown_method", code: "unknown_command", message: `unknown command method: ${shown}`, id: id.data, path: ["method"] });
  }
  const parsed = commandSchema.safeParse(frame);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issuePath(issue?.path ?? []);
    const where = path.length > 0 ? path.join(".") : "frame";
    return fail({
      kind: "invalid_params",
      code: "invalid_argument",
      message: `invalid ${method}: ${where}: ${issue?.message ?? "invalid value"}`,
      id: id.data,
      path,
    });
  }
  return { ok: true, command: parsed.data };
}

function fail(error: ProtocolError): DecodeCommandResult {
  return { ok: false, error };
}

/** Encodes a command for sending (clients). The mirror of decodeCommand. */
export function encodeCommand(command: ProtocolCommand): string {
  return JSON.stringify(command);
}
