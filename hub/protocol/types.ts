/**
 * Wire types of Switchboard: the agent streaming protocol of
 * `@langchain/protocol` 0.0.21 (re-used as is) plus Switchboard's extensions,
 * each marked `Extension`. Commands, responses and events are discriminated by
 * `method` / `type`; use `CommandOf<M>` / `EventOf<M>` to pick a variant.
 */
import type {
  AgentGetTree,
  AgentStatus,
  CommandResponse as SpecCommandResponse,
  CustomData,
  ErrorResponse as SpecErrorResponse,
  InputAnsweredData as SpecInputAnsweredData,
  InputInject,
  InputRequestedData,
  InputRespond,
  LifecycleData as SpecLifecycleData,
  MessagesData,
  Namespace,
  RunStart,
  RunStartParams as SpecRunStartParams,
  StateFork,
  StateGet,
  StateListCheckpoints,
  SubscriptionReconnect,
  SubscriptionSubscribe,
  SubscriptionUnsubscribe,
  ToolsData,
  UpdatesData,
  Checkpoint,
} from "@langchain/protocol";
import type { ErrorCode } from "./errors.ts";
import type { ReviewInfo, ThreadRecordJson } from "./rest.ts";

export type {
  AgentStatus,
  Channel,
  Checkpoint,
  CheckpointSource,
  ContentBlock,
  ContentBlockDelta,
  CustomData,
  FinalizedContentBlock,
  InputRequestedData,
  InputRespondParams,
  MessageMetadata,
  MessagesData,
  Namespace,
  ReconnectParams,
  ReconnectResult,
  SubscribeParams,
  SubscribeResult,
  ToolsData,
  UpdatesData,
  UsageInfo,
} from "@langchain/protocol";

// ---------------------------------------------------------------------------
// Commands (client -> server)
// ---------------------------------------------------------------------------

/** Extension: how a run.start on a busy thread is handled (LangGraph's names). */
export type MultitaskStrategy = "reject" | "enqueue" | "interrupt" | "rollback";

/** Extension: whether a run goes on when the client that started it goes away. */
export type OnDisconnect = "continue" | "cancel";

/** Extension: when a thread's answered interrupts resume it (all answered, or each at once). */
export type ReviewPolicy = "batch" | "eager";

/**
 * `run.start` params with the extensions (all optional): `multitask_strategy`
 * (default "reject"; the schema also accepts the SDK's `multitaskStrategy` and
 * hands it over under this name), `on_disconnect` (default "continue"),
 * `review_policy` (kept in the thread's metadata).
 */
export type RunStartParams = SpecRunStartParams & { multitask_strategy?: MultitaskStrategy; on_disconnect?: OnDisconnect; review_policy?: ReviewPolicy };

/** `subscription.subscribe` with the `since` extension: replay exactly what came after this seq. */
export interface SubscriptionSubscribeCommand {
  method: SubscriptionSubscribe["method"];
  params: SubscriptionSubscribe["params"] & { since?: number };
}

/** Extension: cancel the thread's active run (or the named one). */
export interface RunCancel {
  method: "run.cancel";
  params: { run_id?: string };
}

/** Extension: lease an interrupt so other reviewers see it taken. */
export interface InputClaim {
  method: "input.claim";
  params: { interrupt_id: string; ttl_ms?: number };
}

/** Extension: give a claimed interrupt back before its lease ends. */
export interface InputRelease {
  method: "input.release";
  params: { interrupt_id: string };
}

/**
 * Extension: move a pending interrupt to another queue or candidates. `admin`
 * and the override roles may change anything; a user named in the item's
 * `users` may delegate: hand their place to the named `users`.
 */
export interface InputReassign {
  method: "input.reassign";
  params: { interrupt_id: string; queue?: string; users?: string[]; roles?: string[]; reason?: string };
}

/** Extension: follow a review queue across threads (no thread_id needed). */
export interface QueueSubscribe {
  method: "queue.subscribe";
  params: { queue: string };
}

export interface QueueUnsubscribe {
  method: "queue.unsubscribe";
  params: { subscription_id: string };
}

/** Extension: follow the tenant's thread records (status per assistant) as they change (no thread_id). */
export interface ThreadsSubscribe {
  method: "threads.subscribe";
  /** How many of the most recently updated threads the snapshot lists (1–200, default 50). */
  params: { limit?: number };
}

export interface ThreadsUnsubscribe {
  method: "threads.unsubscribe";
  params: { subscription_id: string };
}

/**
 * Extension: a y-protocols awareness update, base64-encoded, for the thread
 * (`thread_id` / the endpoint's thread) or, with `queue`, a review queue the
 * connection subscribed to.
 */
export interface PresenceUpdate {
  method: "presence.update";
  params: { update: string; queue?: string };
}

/** `run.start` with the extended params. */
export interface RunStartCommand {
  method: RunStart["method"];
  params: RunStartParams;
}

type SpecCommandData =
  | RunStartCommand
  | InputRespond
  | InputInject
  | SubscriptionSubscribeCommand
  | SubscriptionUnsubscribe
  | SubscriptionReconnect
  | AgentGetTree
  | StateGet
  | StateListCheckpoints
  | StateFork;

type ExtensionCommandData = RunCancel | InputClaim | InputRelease | InputReassign | QueueSubscribe | QueueUnsubscribe | ThreadsSubscribe | ThreadsUnsubscribe | PresenceUpdate;

/**
 * Fields every command frame has. `thread_id` is an extension: required on the
 * multiplexed `/ws` socket for thread-scoped commands, optional (and checked
 * against the URL) on `/threads/:thread_id/...` endpoints.
 */
export interface CommandEnvelope {
  id: number;
  thread_id?: string;
}

export type ProtocolCommand = (SpecCommandData | ExtensionCommandData) & CommandEnvelope;
export type CommandMethod = ProtocolCommand["method"];
export type CommandOf<M extends CommandMethod> = Extract<ProtocolCommand, { method: M }>;

export const COMMAND_METHODS = [
  "run.start",
  "run.cancel",
  "input.respond",
  "input.inject",
  "input.claim",
  "input.release",
  "input.reassign",
  "subscription.subscribe",
  "subscription.unsubscribe",
  "subscription.reconnect",
  "queue.subscribe",
  "queue.unsubscribe",
  "threads.subscribe",
  "threads.unsubscribe",
  "agent.getTree",
  "state.get",
  "state.listCheckpoints",
  "state.fork",
  "presence.update",
] as const satisfies readonly CommandMethod[];

// Breaks the build when a command method is missing from COMMAND_METHODS.
const COMMAND_METHODS_COMPLETE: Exclude<CommandMethod, (typeof COMMAND_METHODS)[number]> extends never ? true : false = true;
void COMMAND_METHODS_COMPLETE;

/** Commands that address no thread: the only ones allowed on `/ws` without `thread_id`. */
export const THREADLESS_METHODS = ["queue.subscribe", "queue.unsubscribe", "threads.subscribe", "threads.unsubscribe"] as const satisfies readonly CommandMethod[];

// ---------------------------------------------------------------------------
// Responses (server -> client)
// ---------------------------------------------------------------------------

/** Who did something, as stamped by the hub from the authenticated principal. */
export interface Actor {
  sub: string;
  name: string;
}

export type CommandResponse = SpecCommandResponse & { thread_id?: string };

/** Spec ErrorResponse with Switchboard's codes; `path`/`details` are extensions. */
export type ErrorResponse = Omit<SpecErrorResponse, "error"> & {
  error: ErrorCode;
  thread_id?: string;
  /** Where in the command the problem is (zod issue path), for invalid_argument. */
  path?: Array<string | number>;
  /** Machine-readable context, e.g. `{ answered_by }` for already_answered. */
  details?: Record<string, unknown>;
  /** Extension, already_answered only: who won and when (epoch ms). */
  winner?: Actor;
  answered_at?: number;
};

export type ProtocolResponse = CommandResponse | ErrorResponse;

/** Extension results (`result` of a success response). */
export interface RunCancelResult {
  run_id: string;
}
export interface InputClaimResult {
  interrupt_id: string;
  expires_at: number;
}
export interface QueueSubscribeResult {
  subscription_id: string;
  /** How many open items the snapshot holds: their `input.requested` events follow this reply. */
  items: number;
  /** How many of them have a live claim: an `input.claimed` event for each is also in the snapshot. */
  claims: number;
}

export interface ThreadsSubscribeResult {
  subscription_id: string;
  /** The snapshot: the most recently updated threads, newest first; `thread.status` events follow. */
  threads: ThreadRecordJson[];
}

// ---------------------------------------------------------------------------
// Events (server -> client)
// ---------------------------------------------------------------------------

/**
 * Lifecycle data. A cancelled run is sent as `{ event: "failed", error,
 * cancelled: true }` (`cancelled` is an extension): 0.0.21 has no cancelled
 * status and the official SDK ends a run only on completed/failed/interrupted.
 */
/**
 * Extensions: `cancelled`; with several nodes, a run continued by another
 * node after its own died is announced with `taken_over`, the new `node_id`
 * and the `previous_node_id`.
 */
export type LifecycleData = SpecLifecycleData & { cancelled?: true; taken_over?: true; node_id?: string; previous_node_id?: string };

/** `input.answered` data; `answered_by` / `answered_at` are extensions. */
export type InputAnsweredData = SpecInputAnsweredData & { answered_by?: Actor; answered_at?: number };

/** Extension: an interrupt was leased by a reviewer. */
export interface InputClaimedData {
  interrupt_id: string;
  claimed_by: Actor;
  expires_at: number;
}

/** Extension: a lease ended early (release) — the interrupt is open again. */
export interface InputReleasedData {
  interrupt_id: string;
  released_by: Actor;
}

/** Extension: a quorum item's progress after a vote (in the stage the vote counted in). */
export type QuorumProgressData = {
  approved: number;
  rejected: number;
  required: number;
  /** Names of those whose approvals count, in vote order. */
  approvers: string[];
  rejecters: string[];
  /** 0-based index of the stage, of `stages` (1 without stages). */
  stage: number;
  stages: number;
  stage_name: string | null;
};

/**
 * Extension: a candidate voted on a quorum or staged interrupt. `outcome`:
 * `pending` (more votes needed), `stage_approved` (the next stage's
 * candidates may vote now), `approved` or `rejected` (decided: an
 * `input.answered` follows).
 */
export interface InputVotedData {
  interrupt_id: string;
  by: Actor;
  verdict: "approve" | "reject";
  outcome: "pending" | "stage_approved" | "approved" | "rejected";
  progress: QuorumProgressData;
}

/** Extension: a pending interrupt moved to another queue or candidates. */
export interface InputReassignedData {
  interrupt_id: string;
  by: Actor;
  from: { queue: string; users: string[]; roles: string[] };
  to: { queue: string; users: string[]; roles: string[] };
  /** A candidate handed their place on (rather than an override role moving it). */
  delegated: boolean;
  reason?: string;
}

/** Extension: an interrupt's deadline passed; `action` is what the hub did. */
export interface InputExpiredData {
  interrupt_id: string;
  expired_at: number;
  /** `deny`: the item's policy resumed the run with a denial; `reason` says the denial's message. */
  action: "default_response" | "deny" | "cancel" | "none";
  reason?: string;
}

/** Where an item is routed: its queue and candidates. */
export interface RouteData {
  queue: string;
  users: string[];
  roles: string[];
}

/**
 * Extension: an escalation step of a pending item fired — it moved to
 * `queue` and its candidates widened to `users` / `roles` (from `from`).
 * `step` counts the steps fired so far (1-based), of `steps`.
 */
export interface InputEscalatedData extends RouteData {
  interrupt_id: string;
  step: number;
  steps: number;
  from: RouteData;
  escalated_at: number;
}

/** Extension: a reminder that a pending item still waits; `reminder` counts them (1-based), up to `max`. */
export interface InputReminderData {
  interrupt_id: string;
  reminder: number;
  max: number;
  reminded_at: number;
  expires_at: number | null;
  /** A `keep` item past its deadline. */
  overdue: boolean;
}

/**
 * Extension: an open question was withdrawn — the run that asked it ended
 * without it (cancelled, failed, or replaced by a fork or an edit of the
 * state). It cannot be answered any more (`interrupt_cancelled`).
 */
export interface InputCancelledData {
  interrupt_id: string;
  cancelled_at: number;
  /** Why, for people: e.g. "run cancelled", "run completed". */
  reason: string;
}

/** Extension: a relayed y-protocols awareness update (base64); `queue` for a queue's room. */
export interface PresenceData {
  update: string;
  queue?: string;
}

/** Extension: a thread record was created or changed (its status, assistant or metadata); the whole record. `deleted`: the thread is gone (its last record). */
export type ThreadStatusData = ThreadRecordJson & { deleted?: true };

/** A pending interrupt as a snapshot lists it. */
export interface PendingInterrupt {
  interrupt_id: string;
  namespace: Namespace;
  node?: string;
  payload: unknown;
}

export type RunStatus = "idle" | AgentStatus | "cancelled";

/**
 * Extension: the missed events are gone from the replay buffer; the client
 * drops its derived state and rebuilds it from `snapshot`, then live events
 * with `seq > head_seq` follow.
 */
export interface ResyncData {
  reason: "evicted" | "unknown_event_id" | "run_mismatch";
  head_seq: number;
  snapshot: {
    values: Record<string, unknown> | null;
    interrupts: PendingInterrupt[];
    run: { run_id: string | null; status: RunStatus };
  };
}

/** Data of a `tasks` event: the engine's task start or task result. */
export interface TasksData {
  id: string;
  name: string;
  input?: unknown;
  triggers?: string[];
  error?: string | null;
  result?: Record<string, unknown> | null;
  interrupts?: Array<{ id: string; value: unknown }>;
}

/**
 * Event envelope, exactly the spec's: `{ type, event_id?, seq?, method,
 * params: { namespace, timestamp, node?, data } }`. `thread_id`, `run_id` and
 * `run_seq` (per-run order, assigned by the projection) are extensions; `seq`
 * and `event_id` are assigned per thread by the hub.
 */
export interface EventEnvelope {
  type: "event";
  event_id?: string;
  seq?: number;
  thread_id?: string;
  run_id?: string;
  run_seq?: number;
  /** Extension: the review queue, on the copies a queue subscription delivers. */
  queue?: string;
  /** Extension: the item's routing facts, on the queue copies of `input.requested`. */
  review?: ReviewInfo;
}

export interface EventParams<D> {
  namespace: Namespace;
  /** Milliseconds since the Unix epoch. */
  timestamp: number;
  node?: string;
  data: D;
}

type Ev<M extends string, D> = EventEnvelope & { method: M; params: EventParams<D> };

export type ProtocolEvent =
  | Ev<"lifecycle", LifecycleData>
  | Ev<"messages", MessagesData>
  | Ev<"tools", ToolsData>
  | Ev<"input.requested", InputRequestedData>
  | Ev<"input.answered", InputAnsweredData>
  | Ev<"values", Record<string, unknown>>
  | Ev<"updates", UpdatesData>
  | Ev<"checkpoints", Checkpoint>
  | Ev<"tasks", TasksData>
  /** Channel `custom`, or `custom:<name>` when `data.name` is set. */
  | Ev<"custom", CustomData>
  // Extensions
  | Ev<"input.claimed", InputClaimedData>
  | Ev<"input.released", InputReleasedData>
  | Ev<"input.expired", InputExpiredData>
  | Ev<"input.cancelled", InputCancelledData>
  | Ev<"input.escalated", InputEscalatedData>
  | Ev<"input.reminder", InputReminderData>
  | Ev<"input.voted", InputVotedData>
  | Ev<"input.reassigned", InputReassignedData>
  | Ev<"presence", PresenceData>
  | Ev<"thread.status", ThreadStatusData>
  | Ev<"resync", ResyncData>;

export type EventMethod = ProtocolEvent["method"];
export type EventOf<M extends EventMethod> = Extract<ProtocolEvent, { method: M }>;

/** The review events of an item, as the thread's log and its queue's subscribers get them. */
export const REVIEW_EVENT_METHODS = [
  "input.requested",
  "input.answered",
  "input.claimed",
  "input.released",
  "input.expired",
  "input.cancelled",
  "input.escalated",
  "input.reminder",
  "input.voted",
  "input.reassigned",
] as const satisfies readonly EventMethod[];

export const EVENT_METHODS = [
  "lifecycle",
  "messages",
  "tools",
  "values",
  "updates",
  "checkpoints",
  "tasks",
  "custom",
  ...REVIEW_EVENT_METHODS,
  "presence",
  "thread.status",
  "resync",
] as const satisfies readonly EventMethod[];

/** What a review queue subscription carries (`queue.subscribe`): its items' review events, and presence on the queue. */
export const QUEUE_EVENT_METHODS = [...REVIEW_EVENT_METHODS, "presence"] as const satisfies readonly EventMethod[];

const EVENT_METHODS_COMPLETE: Exclude<EventMethod, (typeof EVENT_METHODS)[number]> extends never ? true : false = true;
void EVENT_METHODS_COMPLETE;

/** Any frame the server sends. */
export type ServerMessage = ProtocolResponse | ProtocolEvent;
