/**
 * hub/review: interrupts as review items — routing, authorization, atomic
 * first-answer-wins decisions, claims, expiry, audit — the review store port,
 * and the coordinator that wires them into runs, transports and queues.
 */
export { actionItemId, actionsOf, checkActionAnswer, groupResumeValue, MAX_ACTIONS_PER_INTERRUPT } from "./actions.ts";
export type { ActionRequest, ProposedAction } from "./actions.ts";
export { actionJson, answeredEvent, claimedEvent, expiredEvent, expiryPolicyJson, progressJson, quorumJson, reassignedEvent, releasedEvent, requestedEvent, reviewInfo, votedEvent } from "./events.ts";
export type { ReviewEvent, ReviewWireEvent } from "./events.ts";
export { checkSchema, validateJson } from "./json-schema.ts";
export { activeClaim, hasOverride, isCandidate, isDue, mayAnswer, mayClaim, mayRelease, mayView } from "./policy.ts";
export { DEFAULT_OVERRIDE_ROLES, describeRoutingIssues, expiryPolicySchema, parseDuration, routingOf } from "./routing.ts";
export type { RoutingContext, RoutingDefaults, RoutingHook, RoutingIssue, RoutingResult } from "./routing.ts";
export { DEFAULT_CLAIM_TTL_MS, ReviewService } from "./service.ts";
export type { AnswerInput, BatchOutcome, InterruptRequest, ReviewLogger, ReviewServiceOptions, TickOutcome } from "./service.ts";
export type { ReviewStore } from "./store.ts";
export { MAX_CLAIM_TTL_MS, isPending } from "./transitions.ts";
export { ACTION_FORMATS, AUDIT_KINDS, PENDING_STATUSES, QUORUM_MODES, REVIEW_STATUSES } from "./types.ts";
export { canonicalJson, describeProgress, isQuorumItem, payloadDigest, progressOf, verdictOf } from "./quorum.ts";
export type { QuorumProgress, VoteOutcome, VoteResult } from "./quorum.ts";
export { DEFAULT_DENY_REASON, MAX_ESCALATION_STEPS, MAX_REMINDERS, MIN_REMIND_EVERY_MS, denialValue, expiryPolicyOf, isOverdue, nextTimerOf } from "./timers.ts";
export type {
  ActionFormat,
  ActionRef,
  Actor,
  AnswerExpectations,
  AuditEntry,
  AuditKind,
  Decision,
  EscalationStep,
  ExpiredItem,
  ExpiryPolicy,
  FiredTimer,
  FiredTimers,
  JsonSchema,
  LapsedClaim,
  ListItemsFilter,
  NewReviewItem,
  Quorum,
  QuorumMode,
  ReassignTarget,
  Refusal,
  RefusalCode,
  RemindPolicy,
  ResumeBatch,
  ResumePolicy,
  ReviewItem,
  ReviewStatus,
  Routing,
  Stage,
  Verdict,
  Vote,
  VoteVerdict,
} from "./types.ts";
export { RESUME_POLICY_KEY, ReviewCoordinator, refusalError, resumePolicyOf } from "./coordinator.ts";
export type { AnswerOutcome, ReviewConfig } from "./coordinator.ts";
export { QueueFanout, mayEverAnswer } from "./queues.ts";
export type { QueueListener } from "./queues.ts";
