/** Principals, items and a hand-driven clock shared by the review tests. */
import type { Principal } from "../../../hub/auth/index.ts";
import type { NewReviewItem, ReviewItem, Routing } from "../../../hub/review/index.ts";

function principal(sub: string, roles: string[], tenant = "acme"): Principal {
  return { sub, name: sub[0]!.toUpperCase() + sub.slice(1), tenant, roles };
}

export const alice = principal("alice", ["reviewer"]);
export const bob = principal("bob", ["reviewer"]);
/** A reviewer with the `legal` role. */
export const carol = principal("carol", ["reviewer", "legal"]);
/** Watches, never answers. */
export const olga = principal("olga", ["observer"]);
/** Started the runs below; a reviewer too. */
export const sam = principal("sam", ["operator", "reviewer"]);
/** A reviewer of another tenant. */
export const eve = principal("eve", ["reviewer", "observer"], "globex");
/** A reviewer who may override claims. */
export const rita = principal("rita", ["reviewer", "review-admin"]);
export const root = principal("root", ["admin"]);

export const T0 = Date.parse("2030-01-01T00:00:00.000Z");

/** A clock the test moves by hand. */
export function manualClock(start = T0) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number): number {
      now += ms;
      return now;
    },
    set(ms: number): void {
      now = ms;
    },
  };
}

export function routing(overrides: Partial<Routing> = {}): Routing {
  return { queue: "default", users: [], roles: [], expiresAt: null, allowSelfApproval: false, overrideRoles: ["review-admin"], ...overrides };
}

export function newItem(interruptId: string, overrides: Omit<Partial<NewReviewItem>, "routing"> & { routing?: Partial<Routing> } = {}): NewReviewItem {
  const { routing: r, ...rest } = overrides;
  return {
    interruptId,
    threadId: "t1",
    runId: "r1",
    tenant: "acme",
    namespace: [],
    node: "review",
    payload: { kind: "review", draft: "Hello" },
    startedBy: "sam",
    ...rest,
    routing: routing(r),
  };
}

/** A stored item as the pure policy sees it. */
export function item(overrides: Omit<Partial<ReviewItem>, "routing"> & { routing?: Partial<Routing> } = {}): ReviewItem {
  const { routing: r, ...rest } = overrides;
  return {
    interruptId: "i1",
    threadId: "t1",
    runId: "r1",
    tenant: "acme",
    namespace: [],
    node: "review",
    payload: {},
    status: "open",
    claim: null,
    answer: null,
    startedBy: "sam",
    createdAt: new Date(T0).toISOString(),
    expiresAt: null,
    resumedAt: null,
    resumeRunId: null,
    appliedAt: null,
    votes: [],
    stage: 0,
    revision: 0,
    payloadDigest: "",
    escalationStep: 0,
    remindersSent: 0,
    remindedAt: null,
    overdueAt: null,
    nextTimerAt: null,
    ...rest,
    routing: routing(r),
  };
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
