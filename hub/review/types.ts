/**
 * Review items: each pending interrupt as the hub routes, claims, answers,
 * expires and audits it. Plain JSON records, shared by the store port, the
 * pure policy and the service. Timestamps are ISO strings (they sort as
 * text); clocks and `now` arguments are epoch milliseconds.
 */
import type { Actor, ErrorCode } from "../protocol/index.ts";
import type { ActionSource } from "../auth/index.ts";
import type { JsonSchema } from "./json-schema.ts";
import type { ResumeEdits } from "../runs/answers.ts";

export type { GotoTarget, ResumeEdits } from "../runs/answers.ts";

export type { Actor } from "../protocol/index.ts";
export type { JsonSchema } from "./json-schema.ts";

export const REVIEW_STATUSES = ["open", "claimed", "answered", "expired", "cancelled"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** Statuses in which an item still waits for an answer. */
export const PENDING_STATUSES = ["open", "claimed"] as const satisfies readonly ReviewStatus[];

/** Where an item goes and who may answer it; resolved once, when the item is created. */
export interface Routing {
  queue: string;
  /** Candidate `sub`s. With `roles`, either match suffices; both empty = any reviewer of the tenant. */
  users: string[];
  roles: string[];
  expiresAt: string | null;
  /**
   * What the deadline does (see timers.ts expiryPolicyOf): none = the item
   * expires and the run stays interrupted. `{ response }` without `action` is
   * how items stored before explicit policies said `default`.
   */
  onExpire?: ExpiryPolicy | LegacyExpiryDefault;
  /** Whether the principal who started the run may answer. */
  allowSelfApproval: boolean;
  /** Answers must validate against it (JSON Schema 2020-12; see json-schema.ts). */
  responseSchema?: JsonSchema;
  /** Roles that may answer over someone else's claim and release it (`admin` always may). */
  overrideRoles: string[];
  /** How many candidates must approve (see quorum.ts); absent = `{ mode: "any" }`, first answer wins. */
  quorum?: Quorum;
  /** Ordered approval stages; the item's candidates (`users`, `roles`) are the current stage's. */
  stages?: Stage[];
  /** Re-routing steps while the item is pending, in `afterMs` order (timers.ts). */
  escalation?: EscalationStep[];
  /** Reminders while the item is pending (timers.ts). */
  remind?: RemindPolicy;
}

export const QUORUM_MODES = ["any", "all", "k_of_n"] as const;
export type QuorumMode = (typeof QUORUM_MODES)[number];

/**
 * `any`: the first answer decides. `all`: every user in the candidate `users`
 * list approves. `k_of_n`: `k` candidates approve. A reject ends the item when
 * `rejectEnds` (default true); otherwise it ends only once the rule cannot be met.
 */
export interface Quorum {
  mode: QuorumMode;
  k?: number;
  rejectEnds?: boolean;
}

/** One step of an ordered approval; empty `users` and `roles` take the item's own candidates. */
export interface Stage {
  name: string;
  users: string[];
  roles: string[];
  quorum?: Quorum;
}

export type VoteVerdict = "approve" | "reject";

/** One candidate's answer to a quorum or staged item. */
export interface Vote {
  by: Actor;
  at: string;
  verdict: VoteVerdict;
  value: unknown;
  /** Index of the stage the vote counted in. */
  stage: number;
  /** The item's revision when the vote was cast: votes of an earlier revision no longer count. */
  revision: number;
  edits?: ResumeEdits;
}

/**
 * The explicit expiry policy of an item. `keep`: the item stays pending past
 * its deadline (overdue) and nothing resumes; `default`: `response` is the
 * answer; `deny`: the run resumes with the denial value (timers.ts denialValue).
 */
export type ExpiryPolicy = { action: "keep" } | { action: "default"; response: unknown } | { action: "deny"; reason?: string };
export const EXPIRY_ACTIONS = ["keep", "default", "deny"] as const;

/** `onExpire` as stored before policies were explicit: means `{ action: "default", response }`. */
export interface LegacyExpiryDefault {
  response: unknown;
}

/** One escalation step: `afterMs` from the item's creation, its queue moves and its candidates widen. */
export interface EscalationStep {
  afterMs: number;
  queue?: string;
  users?: string[];
  roles?: string[];
}

export interface RemindPolicy {
  everyMs: number;
  /** How many reminders at most (see timers.ts MAX_REMINDERS). */
  max?: number;
}

export interface ReviewItem {
  interruptId: string;
  threadId: string;
  runId: string;
  tenant: string;
  namespace: string[];
  node: string | null;
  /** The interrupt value, as JSON. */
  payload: unknown;
  routing: Routing;
  status: ReviewStatus;
  /** The current lease; null when open or final. A lapsed lease stays until tick() clears it. */
  claim: { by: Actor; until: string } | null;
  /** The winning answer, with the state edits sent with it (applied by its resume). */
  answer: { value: unknown; by: Actor; at: string; edits?: ResumeEdits } | null;
  /** `sub` of the principal that started the run. */
  startedBy: string;
  createdAt: string;
  /** Same as routing.expiresAt. */
  expiresAt: string | null;
  /** When the answer (or expiry default) was handed to a resume; set once, see takeResume. */
  resumedAt: string | null;
  /** The run that resumes with this answer (set with resumedAt): the answer's one consumer. */
  resumeRunId: string | null;
  /** When that run had applied the answer (the checkpoint holds it); until then a restart re-applies it. */
  appliedAt: string | null;
  /** Votes cast on a quorum or staged item, in order (empty for a first-answer-wins item). */
  votes: Vote[];
  /** Index of the current stage in routing.stages (0 without stages). */
  stage: number;
  /** Bumped when the thread's state is edited or the question is re-raised while the item is pending. */
  revision: number;
  /** sha-256 hex of the canonical JSON of `{ payload, revision }` (quorum.ts payloadDigest); wire `payload_digest`. */
  payloadDigest: string;
  /** One action of a multi-action interrupt (see actions.ts); absent for a plain question. */
  action?: ActionRef;
  /** How many steps of routing.escalation fired. */
  escalationStep: number;
  /** How many reminders were sent, and when the last one was. */
  remindersSent: number;
  remindedAt: string | null;
  /** When a `keep` item's deadline was noted as passed (it stays pending). */
  overdueAt: string | null;
  /** When the item's next timer (expiry, escalation, reminder) is due while it is pending; timers.ts nextTimerOf. */
  nextTimerAt: string | null;
}

/** What the hub knows when an interrupt is raised; createItem adds the rest. */
export type NewReviewItem = Pick<ReviewItem, "interruptId" | "threadId" | "runId" | "tenant" | "namespace" | "node" | "payload" | "routing" | "startedBy"> &
  Partial<Pick<ReviewItem, "action">>;

/**
 * How a multi-action interrupt asked, so its one resume answers in the same
 * shape: LangChain's human-in-the-loop middleware (`hitl`: snake_case as in
 * Python and the LangGraph server, `hitl-camel`: the JS middleware's
 * camelCase) or Agent Inbox's `HumanInterrupt` list (`agent-inbox`).
 */
export const ACTION_FORMATS = ["hitl", "hitl-camel", "agent-inbox"] as const;
export type ActionFormat = (typeof ACTION_FORMATS)[number];

/**
 * An item's place in its interrupt: the item is action `index` of `count`
 * of interrupt `interruptId` (the item's own id is `<interruptId>.<index>`).
 * When every item of the group is decided, one resume answers `interruptId`.
 */
export interface ActionRef {
  interruptId: string;
  index: number;
  count: number;
  /** The tool / action name. */
  name: string;
  format: ActionFormat;
  /** Response types the action's config allows (`approve`/`edit`/`reject`/`respond`, or `accept`/`edit`/`response`/`ignore`). */
  allowed: string[];
  /** JSON Schema of edited args, when the config gives one. */
  argsSchema?: JsonSchema;
}

export const AUDIT_KINDS = [
  "requested",
  "claimed",
  "released",
  "claim_expired",
  "answered",
  "rejected",
  "expired",
  "cancelled",
  "voted",
  "reassigned",
  "revised",
  "overdue",
  "escalated",
  "reminded",
] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** One line of an item's append-only audit trail. */
export interface AuditEntry {
  interruptId: string;
  at: string;
  kind: AuditKind;
  by?: Actor;
  /** For `rejected`: the error code; for `cancelled`: why. */
  reason?: string;
  detail?: unknown;
  /** Where the action came from (transport, peer, user agent), on lines a principal's request wrote. */
  source?: ActionSource;
}

export type RefusalCode = Extract<
  ErrorCode,
  | "permission_denied"
  | "claim_held"
  | "already_answered"
  | "interrupt_expired"
  | "interrupt_cancelled"
  | "unknown_interrupt"
  | "invalid_argument"
  | "already_voted"
  | "stale_payload"
>;

/** Why a claim, release or answer was refused: data the hub turns into an error response. */
export type Refusal =
  | { ok: false; code: "already_answered"; message: string; winner: Actor; answeredAt: string }
  | { ok: false; code: "claim_held"; message: string; claimedBy: Actor; until: string }
  | { ok: false; code: "already_voted"; message: string; votedAt: string; verdict: VoteVerdict }
  | { ok: false; code: Exclude<RefusalCode, "already_answered" | "claim_held" | "already_voted">; message: string };

export type Verdict = { ok: true } | Refusal;

/** What an answer may assert about the item it answers. */
export interface AnswerExpectations {
  /** The `payloadDigest` the answerer saw; a different current digest refuses the answer (`stale_payload`). */
  payloadDigest?: string;
}

/** Where a reassigned item goes; omitted fields keep their value. */
export interface ReassignTarget {
  queue?: string;
  users?: string[];
  roles?: string[];
  reason?: string;
}

/** Result of a claim, release or answer: the item after it; `changed` is false for a no-op release. */
export type Decision = { ok: true; item: ReviewItem; changed: boolean } | Refusal;

export interface ListItemsFilter {
  tenant: string;
  queue?: string;
  status?: ReviewStatus | readonly ReviewStatus[];
  threadId?: string;
  runId?: string;
}

/** A claim whose lease lapsed: the item (open again) and who held it. */
export interface LapsedClaim {
  item: ReviewItem;
  holder: Actor;
  until: string;
}

/** An item expire() moved to `expired`, and what the hub should do about it. */
export interface ExpiredItem {
  item: ReviewItem;
  action: "default_response" | "deny" | "none";
}

/** One timer that fired for an item (timers.ts fireDue). */
export type FiredTimer =
  | { kind: "expired"; action: ExpiredItem["action"] }
  | { kind: "overdue" }
  | { kind: "escalated"; step: number; from: Pick<Routing, "queue" | "users" | "roles"> }
  | { kind: "reminded"; count: number };

/** What fireDueTimers did to one item: the item before and after, and each timer that fired, in order. */
export interface FiredTimers {
  before: ReviewItem;
  item: ReviewItem;
  fired: FiredTimer[];
}

/**
 * `batch`: resume once, when no interrupt of the run is pending any more.
 * `eager`: resume after each answer with what is answered so far.
 */
export type ResumePolicy = "batch" | "eager";

/**
 * Answers to hand to one resume of a run, by interrupt id: the durable record
 * that exactly one resume run (`resumeRunId`) consumes. Taken once (see
 * takeResume); kept until that run applied it (markApplied), so a crash in
 * between is recovered by running the resume again, with the same run id.
 */
export interface ResumeBatch {
  /** The interrupted run whose questions these answer. */
  runId: string;
  /** The run that resumes with them. */
  resumeRunId: string;
  threadId: string;
  tenant: string;
  answers: Record<string, unknown>;
  /** Ids in `answers` whose value is (for a multi-action interrupt: in part) the expiry default, not a reviewer's answer. */
  defaulted: string[];
  /** The answers' edits merged in answer order: later update keys win, gotos add up. */
  edits: ResumeEdits;
  /** `sub` of the principal that started the interrupted run (the resume runs on its behalf). */
  startedBy: string;
}
