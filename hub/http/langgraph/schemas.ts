/**
 * Request bodies of the LangGraph API routes, as `@langchain/langgraph-sdk`
 * 1.15 sends them, each parsed once from `unknown` with one zod schema.
 * Unknown fields are dropped (the SDK sends some the hub has no use for:
 * `feedback_keys`, `durability`, `langsmith_tracer`…); fields the hub cannot
 * honour are refused with a clear error rather than ignored (see runs.ts).
 */
import { z } from "zod";
import { SwitchboardError } from "../../protocol/index.ts";
import { LG_STREAM_MODES } from "./stream-format.ts";

const record = z.record(z.string(), z.unknown());
const nodes = z.union([z.literal("*"), z.array(z.string())]);
const send = z.object({ node: z.string().min(1), input: z.unknown().optional() });
const gotoTarget = z.union([z.string().min(1), send]);
const streamModes = ["tools", "lifecycle"] as const;

export const CommandBody = z.object({
  resume: z.unknown().optional(),
  // The SDK types update as an object or [key, value] pairs.
  update: z.union([record, z.array(z.tuple([z.string(), z.unknown()]))]).nullish(),
  goto: z.union([gotoTarget, z.array(gotoTarget)]).nullish(),
});

export const CheckpointBody = z.object({
  checkpoint_id: z.string().min(1).nullish(),
  checkpoint_ns: z.string().nullish(),
  checkpoint_map: record.nullish(),
  thread_id: z.string().nullish(),
});

export const RunBody = z.object({
  assistant_id: z.string().min(1),
  input: record.nullish(),
  command: CommandBody.nullish(),
  metadata: record.nullish(),
  config: z.object({ configurable: record.nullish(), tags: z.array(z.string()).nullish(), recursion_limit: z.number().int().positive().nullish() }).loose().nullish(),
  context: z.unknown().optional(),
  stream_mode: z.union([z.enum([...LG_STREAM_MODES, ...streamModes]), z.array(z.enum([...LG_STREAM_MODES, ...streamModes]))]).nullish(),
  stream_subgraphs: z.boolean().nullish(),
  stream_resumable: z.boolean().nullish(),
  interrupt_before: nodes.nullish(),
  interrupt_after: nodes.nullish(),
  multitask_strategy: z.enum(["reject", "interrupt", "rollback", "enqueue"]).nullish(),
  on_disconnect: z.enum(["cancel", "continue"]).nullish(),
  on_completion: z.enum(["delete", "keep"]).nullish(),
  if_not_exists: z.enum(["create", "reject"]).nullish(),
  checkpoint_id: z.string().min(1).nullish(),
  checkpoint: CheckpointBody.nullish(),
  webhook: z.string().nullish(),
  after_seconds: z.number().nonnegative().nullish(),
});
export type RunBody = z.infer<typeof RunBody>;

export const ThreadCreateBody = z.object({
  thread_id: z.string().min(1).nullish(),
  metadata: record.nullish(),
  if_exists: z.enum(["raise", "do_nothing"]).nullish(),
  supersteps: z.array(z.object({ updates: z.array(z.object({ values: z.unknown().optional(), command: CommandBody.nullish(), as_node: z.string().min(1) })) })).nullish(),
  ttl: z.unknown().optional(),
});

export const ThreadPatchBody = z.object({ metadata: record.nullish(), ttl: z.unknown().optional() });

const threadStatus = z.enum(["idle", "busy", "interrupted", "error"]);
const page = { limit: z.number().int().min(0).max(1000).nullish(), offset: z.number().int().min(0).nullish() };

export const ThreadSearchBody = z.object({
  metadata: record.nullish(),
  values: record.nullish(),
  ids: z.array(z.string()).nullish(),
  status: threadStatus.nullish(),
  ...page,
  sort_by: z.enum(["thread_id", "status", "created_at", "updated_at", "state_updated_at"]).nullish(),
  sort_order: z.enum(["asc", "desc"]).nullish(),
  select: z.array(z.string()).nullish(),
});

export const ThreadCountBody = z.object({ metadata: record.nullish(), values: record.nullish(), status: threadStatus.nullish() });

export const StateUpdateBody = z.object({
  values: z.unknown().optional(),
  as_node: z.string().min(1).nullish(),
  checkpoint_id: z.string().min(1).nullish(),
  checkpoint: CheckpointBody.nullish(),
});

export const StateAtBody = z.object({ checkpoint: CheckpointBody, subgraphs: z.boolean().nullish() });

export const HistoryBody = z.object({
  limit: z.number().int().min(1).max(1000).nullish(),
  // A checkpoint id, a checkpoint, or a config as the SDK types it ({ configurable: { checkpoint_id } }).
  before: z.union([z.string().min(1), z.object({ configurable: record }), CheckpointBody]).nullish(),
  metadata: record.nullish(),
  checkpoint: CheckpointBody.nullish(),
});

export const AssistantSearchBody = z.object({
  graph_id: z.string().nullish(),
  name: z.string().nullish(),
  metadata: record.nullish(),
  ...page,
  sort_by: z.enum(["assistant_id", "graph_id", "name", "created_at", "updated_at"]).nullish(),
  sort_order: z.enum(["asc", "desc"]).nullish(),
});

export const AssistantCountBody = z.object({ graph_id: z.string().nullish(), name: z.string().nullish(), metadata: record.nullish() });

/** Parses `body` with `schema`; the first issue becomes an invalid_argument naming its path. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
  throw new SwitchboardError("invalid_argument", `invalid request body${at}: ${issue?.message ?? "malformed"}`, issue ? { path: issue.path.map(String) } : undefined);
}
