/**
 * hub/review: interrupts as review items — routing, authorization, atomic
 * first-answer-wins decisions, claims, expiry, audit — for the hub to wire
 * into runs and transports.
 */
export { answeredEvent, claimedEvent, expiredEvent, releasedEvent, requestedEvent } from "./events.ts";
export type { ReviewEvent, ReviewWireEvent } from "./events.ts";
export { checkSchema, validateJson } from "./json-schema.ts";
export { MemoryReviewStore } from "../storage/memory/review-store.ts";
export { activeClaim, hasOverride, isCandidate, isDue, mayAnswer, mayClaim, mayRelease, mayView } from "./policy.ts";
export { DEFAULT_OVERRIDE_ROLES, describeRoutingIssues, parseDuration, routingOf } from "./routing.ts";
export type { RoutingContext, RoutingDefaults, RoutingHook, RoutingIssue, RoutingResult } from "./routing.ts";
export { DEFAULT_CLAIM_TTL_MS, ReviewService } from "./service.ts";
export type { AnswerInput, BatchOutcome, InterruptRequest, ReviewLogger, ReviewServiceOptions, TickOutcome } from "./service.ts";
export { SqliteReviewStore } from "../storage/sqlite/review-store.ts";
export type { ReviewStore } from "./store.ts";
export { MAX_CLAIM_TTL_MS } from "./transitions.ts";
export { AUDIT_KINDS, PENDING_STATUSES, REVIEW_STATUSES } from "./types.ts";
export type {
  Actor,
  AuditEntry,
  AuditKind,
  Decision,
  ExpiredItem,
  JsonSchema,
  LapsedClaim,
  ListItemsFilter,
  NewReviewItem,
  Refusal,
  RefusalCode,
  ResumeBatch,
  ResumePolicy,
  ReviewItem,
  ReviewStatus,
  Routing,
  Verdict,
} from "./types.ts";
