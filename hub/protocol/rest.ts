/**
 * Schemas of the REST bodies a client reads (docs/PROTOCOL.md "REST
 * endpoints"): health, the assistants, who the caller is, and a review item
 * with its audit trail. The hub builds these bodies; the SDK parses them with
 * these schemas, so both sides agree on one definition. Objects are loose:
 * fields a newer hub adds pass through.
 */
import { z } from "zod";

const str = z.string();
const ms = z.number();
const actor = z.looseObject({ sub: str, name: str });

export const healthSchema = z.looseObject({ ok: z.boolean(), auth: z.enum(["jwt", "open"]), assistants: z.number() });
export type HealthInfo = z.infer<typeof healthSchema>;

export const assistantInfoSchema = z.looseObject({ assistant_id: str, graph_id: str, description: str.optional() });
export const assistantListSchema = z.array(assistantInfoSchema);
export type AssistantInfo = z.infer<typeof assistantInfoSchema>;

/** `GET /me`: the authenticated principal, as the hub sees it. */
export const whoAmISchema = z.looseObject({
  auth: z.enum(["jwt", "open"]),
  principal: z.looseObject({ sub: str, name: str, tenant: str, roles: z.array(str) }),
  /** Epoch ms of the token's `exp`; null without one (and in open mode). */
  expires_at: ms.nullable(),
});
export type WhoAmI = z.infer<typeof whoAmISchema>;

/**
 * The queue name that means "every queue": `queue.subscribe { queue: "*" }`
 * follows all items the subscriber may answer, in any queue (the web inbox).
 * Routing never puts an item in a queue of this name.
 */
export const ALL_QUEUES = "*";

/** Open dev mode: a bearer token `dev.<name>` acts as the user named (the web app's "Act as…"). */
export const DEV_AS_PREFIX = "dev.";
/** A name `dev.<name>` may carry: a bearer token's characters (RFC 6750), 1–64 of them. */
export const DEV_AS_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** A thread record as `GET /threads` and `GET /threads/:id` return it. */
export const threadRecordSchema = z.looseObject({
  thread_id: str,
  assistant_id: str.nullable(),
  status: z.enum(["idle", "busy", "interrupted", "error"]),
  metadata: z.record(str, z.unknown()),
  created_at: str,
  updated_at: str,
});
export type ThreadRecordJson = z.infer<typeof threadRecordSchema>;
export const threadListSchema = z.looseObject({ threads: z.array(threadRecordSchema) });

export const REVIEW_ITEM_STATUSES = ["open", "claimed", "answered", "expired", "cancelled"] as const;

export const reviewRoutingSchema = z.looseObject({
  queue: str,
  users: z.array(str),
  roles: z.array(str),
  allow_self_approval: z.boolean(),
  expires_at: ms.nullable(),
  on_expire: z.looseObject({ action: z.enum(["keep", "default", "deny"]), response: z.unknown().optional(), reason: str.optional() }).optional(),
  escalation: z.array(z.looseObject({ after_ms: ms, queue: str.optional(), users: z.array(str).optional(), roles: z.array(str).optional() })).optional(),
  remind: z.looseObject({ every_ms: ms, max: z.number().int().optional() }).optional(),
  response_schema: z.unknown().optional(),
});
export type ReviewRoutingJson = z.infer<typeof reviewRoutingSchema>;

export const auditEntrySchema = z.looseObject({ at: ms, kind: str, by: actor.optional(), reason: str.optional(), detail: z.unknown().optional() });

/** Whether the caller may answer the item now, and if not, why (the refusal the hub would give). */
export const reviewViewerSchema = z.looseObject({ may_answer: z.boolean(), code: str.optional(), reason: str.optional() });
export type ReviewViewer = z.infer<typeof reviewViewerSchema>;

/**
 * One action of a multi-action interrupt (LangChain's human-in-the-loop
 * `action_requests`, an Agent Inbox list): the item is action `index` of
 * `count`; one resume answers `interrupt_id` when all are decided.
 */
export const reviewActionSchema = z.looseObject({
  interrupt_id: str,
  index: z.number().int().nonnegative(),
  count: z.number().int().positive(),
  name: str,
  format: z.enum(["hitl", "hitl-camel", "agent-inbox"]),
  allowed: z.array(str),
  args_schema: z.unknown().optional(),
});
export type ReviewActionJson = z.infer<typeof reviewActionSchema>;
/** A quorum item's progress (in its current stage): `2 of 3 approved: Rita, Sam`. */
export const quorumProgressSchema = z.looseObject({
  approved: z.number(),
  rejected: z.number(),
  required: z.number(),
  approvers: z.array(str),
  rejecters: z.array(str),
  stage: z.number(),
  stages: z.number(),
  stage_name: str.nullable(),
});
const quorumRuleSchema = z.looseObject({ mode: z.enum(["any", "all", "k_of_n"]), k: z.number().optional(), reject_ends: z.boolean() });
/** Quorum or staged items: the rule (or each stage's) and where the current stage stands. */
export const quorumInfoSchema = z.looseObject({
  rule: quorumRuleSchema.optional(),
  stages: z.array(z.looseObject({ name: str, users: z.array(str), roles: z.array(str), rule: quorumRuleSchema.optional() })).optional(),
  progress: quorumProgressSchema,
});
export type QuorumInfo = z.infer<typeof quorumInfoSchema>;

export const reviewRecordSchema = z.looseObject({
  interrupt_id: str,
  thread_id: str,
  run_id: str,
  namespace: z.array(str),
  node: str.nullable(),
  payload: z.unknown(),
  /** sha-256 hex of the payload and revision: an answer may send it back (`stale_payload` if it changed). */
  payload_digest: str.optional(),
  revision: z.number().optional(),
  status: z.enum(REVIEW_ITEM_STATUSES),
  queue: str,
  routing: reviewRoutingSchema,
  claim: z.looseObject({ claimed_by: actor, expires_at: ms.nullable() }).nullable(),
  answer: z.looseObject({ response: z.unknown(), answered_by: actor, answered_at: ms.nullable() }).nullable(),
  started_by: str,
  created_at: ms.nullable(),
  expires_at: ms.nullable(),
  resumed_at: ms.nullable(),
  overdue: z.boolean().optional(),
  escalation_step: z.number().int().optional(),
  reminders_sent: z.number().int().optional(),
  next_timer_at: ms.nullable().optional(),
  quorum: quorumInfoSchema.optional(),
  votes: z.array(z.looseObject({ by: actor, at: ms, verdict: z.enum(["approve", "reject"]), response: z.unknown(), stage: z.number(), revision: z.number() })).optional(),
  audit: z.array(auditEntrySchema).optional(),
  viewer: reviewViewerSchema.optional(),
  action: reviewActionSchema.optional(),
});
export type ReviewRecord = z.infer<typeof reviewRecordSchema>;

/** `GET /threads/:thread_id/reviews`: every review item the thread has had that the caller may read, oldest first. */
export const threadReviewsSchema = z.looseObject({ thread_id: str, items: z.array(reviewRecordSchema) });

/**
 * The extension envelope field `review` on the queue copies of `input.requested`
 * (snapshot and live): the item's routing and facts an inbox shows without a
 * request per item.
 */
export const reviewInfoSchema = z.looseObject({
  queue: str,
  assistant_id: str.nullable().optional(),
  created_at: ms.nullable().optional(),
  expires_at: ms.nullable(),
  users: z.array(str),
  roles: z.array(str),
  response_schema: z.unknown().optional(),
  has_default: z.boolean().optional(),
  action: reviewActionSchema.optional(),
  on_expire: z.looseObject({ action: z.enum(["keep", "default", "deny"]) }).optional(),
  /** sha-256 hex of the item's payload and revision: send it back with the answer to refuse a stale one. */
  payload_digest: str.optional(),
  /** Quorum or staged items: the rule and where the current stage stands. */
  quorum: quorumInfoSchema.optional(),
});
export type ReviewInfo = z.infer<typeof reviewInfoSchema>;
