/**
 * What every review store backend must do identically: each transition as a
 * pure function of (item, principal, input, now) returning the caller's
 * result, the item to write and the audit lines to append. A backend only
 * reads, calls one of these inside its atomic section, and writes.
 */
import type { Principal } from "../auth/index.ts";
import { checkActionAnswer, completeGroups, groupResumeValue } from "./actions.ts";
import { validateJson } from "./json-schema.ts";
import { activeClaim, mayAnswer, mayClaim, mayRelease, stateRefusal } from "./policy.ts";
import { alreadyVoted, canonicalJson, castVote, earlierVote, isQuorumItem, payloadDigest, planReassign, reassignedAudit, reviseItem, verdictOf, withStageCandidates } from "./quorum.ts";
import type { VoteResult } from "./quorum.ts";
import type { Actor, AnswerExpectations, AuditEntry, Decision, ExpiredItem, LapsedClaim, NewReviewItem, ReassignTarget, Refusal, ResumeBatch, ResumeEdits, ResumePolicy, ReviewItem, ReviewStatus, Vote } from "./types.ts";
import { expire, expiryPolicyOf, expiryValue, nextTimerOf } from "./timers.ts";

export interface Transition {
  result: Decision & { vote?: VoteResult };
  /** The item to store; undefined when nothing changes. */
  next?: ReviewItem;
  audit: AuditEntry[];
}

/** Longest lease a claim may take (a forgotten claim must not block an item for days). */
export const MAX_CLAIM_TTL_MS = 24 * 3_600_000;

export function iso(now: number): string {
  return new Date(now).toISOString();
}

/** ISO timestamps compare as text only in one canonical form. */
function canonicalIso(value: string | null): string | null {
  if (value === null) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`invalid timestamp ${JSON.stringify(value)}`);
  return iso(ms);
}

/** JSON text of a value; undefined is stored as null. Throws on what JSON cannot hold. */
export function encodeJson(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

export function decodeJson(text: string): unknown {
  return JSON.parse(text) as unknown;
}

/** A deep copy with exactly the JSON semantics of the SQL backend. */
export function cloneJson<T>(value: T): T {
  return decodeJson(encodeJson(value)) as T;
}

export function isPending(status: ReviewStatus): boolean {
  return status === "open" || status === "claimed";
}

function actor(principal: Principal): Actor {
  return { sub: principal.sub, name: principal.name };
}

/**
 * A refused answer changes nothing but the audit: rejected attempts are part
 * of the trail — those of the item's tenant. Another tenant's attempts are
 * not: they must not grow (or show up in) the trail of a tenant they cannot see.
 */
function rejectAnswer(item: ReviewItem, principal: Principal, refusal: Refusal, now: number): Transition {
  if (principal.tenant !== item.tenant) return refuse(refusal);
  const entry: AuditEntry = { interruptId: item.interruptId, at: iso(now), kind: "rejected", by: actor(principal), reason: refusal.code, detail: { message: refusal.message } };
  return { result: refusal, audit: [entry] };
}

/**
 * Repeated refusals are one audit line: when the trail's last line is a
 * refusal of the same principal for the same reason, the new one is merged
 * into it — `detail.repeated` counts the attempts, `detail.last_at` is the
 * latest — instead of appended. Returns the merged line, or undefined to append.
 */
export function coalesceRejection(last: AuditEntry | undefined, entry: AuditEntry): AuditEntry | undefined {
  if (entry.kind !== "rejected" || last?.kind !== "rejected" || last.by?.sub !== entry.by?.sub || last.reason !== entry.reason) return undefined;
  const detail = typeof last.detail === "object" && last.detail !== null ? (last.detail as Record<string, unknown>) : {};
  const repeated = typeof detail["repeated"] === "number" ? detail["repeated"] : 1;
  const message = typeof entry.detail === "object" && entry.detail !== null ? (entry.detail as Record<string, unknown>)["message"] : undefined;
  return { ...last, detail: { ...detail, ...(message === undefined ? {} : { message }), repeated: repeated + 1, last_at: entry.at } };
}

/** Refused claims and releases are not audited: they change nothing and would only add noise. */
function refuse(refusal: Refusal): Transition {
  return { result: refusal, audit: [] };
}

function unknown(interruptId: string): Transition {
  return refuse({ ok: false, code: "unknown_interrupt", message: `no review item for interrupt ${interruptId}` });
}

export function newItem(input: NewReviewItem, now: number): { item: ReviewItem; audit: AuditEntry[] } {
  const routing = withStageCandidates(cloneJson(input.routing));
  routing.expiresAt = canonicalIso(routing.expiresAt);
  const payload = cloneJson(input.payload);
  const item: ReviewItem = {
    interruptId: input.interruptId,
    threadId: input.threadId,
    runId: input.runId,
    tenant: input.tenant,
    namespace: [...input.namespace],
    node: input.node,
    payload,
    routing,
    status: "open",
    claim: null,
    answer: null,
    startedBy: input.startedBy,
    createdAt: iso(now),
    expiresAt: routing.expiresAt,
    resumedAt: null,
    resumeRunId: null,
    appliedAt: null,
    votes: [],
    stage: 0,
    revision: 0,
    payloadDigest: payloadDigest(payload, 0),
    escalationStep: 0,
    remindersSent: 0,
    remindedAt: null,
    overdueAt: null,
    nextTimerAt: null,
  };
  if (input.action !== undefined) item.action = cloneJson(input.action);
  item.nextTimerAt = nextTimerOf(item);
  const { queue, users, roles, expiresAt } = routing;
  const policy = expiryPolicyOf(routing);
  const detail: Record<string, unknown> = { queue, users, roles, expiresAt, hasDefault: policy?.action === "default" };
  if (policy !== undefined) detail["onExpire"] = policy.action;
  if (routing.quorum !== undefined) detail["quorum"] = routing.quorum;
  if (routing.stages !== undefined) detail["stages"] = routing.stages.map((s) => s.name);
  return { item, audit: [{ interruptId: item.interruptId, at: item.createdAt, kind: "requested", detail }] };
}

/**
 * The same interrupt raised again (a resume run re-asking a question still
 * pending): another payload is a new revision of the item; the same one, or an
 * item no longer pending, changes nothing.
 */
export function reraiseItem(existing: ReviewItem, input: NewReviewItem, now: number): { next: ReviewItem; audit: AuditEntry[] } | undefined {
  if (!isPending(existing.status)) return undefined;
  const payload = cloneJson(input.payload);
  if (canonicalJson(payload) === canonicalJson(existing.payload)) return undefined;
  return reviseItem(existing, iso(now), "reraised", payload);
}

/** Whether an answer's edits change the state its run resumes into (the thread's other questions were asked of another). */
export function editsState(edits: ResumeEdits | undefined): boolean {
  return edits !== undefined && (edits.update !== undefined || (edits.goto !== undefined && edits.goto.length > 0));
}

/** The pending item at its next revision (the thread's state was edited); undefined if final. */
export function reviseOnEdit(item: ReviewItem, now: number, reason: string): { next: ReviewItem; audit: AuditEntry[] } | undefined {
  if (!isPending(item.status)) return undefined;
  return reviseItem(item, iso(now), reason);
}

export function decideAnswer(
  item: ReviewItem | undefined,
  interruptId: string,
  principal: Principal,
  value: unknown,
  now: number,
  edits?: ResumeEdits,
  expect?: AnswerExpectations,
): Transition {
  if (item === undefined) return unknown(interruptId);
  const verdict = mayAnswer(principal, item, now);
  if (!verdict.ok) return rejectAnswer(item, principal, verdict, now);
  if (expect?.payloadDigest !== undefined && expect.payloadDigest !== item.payloadDigest) {
    const message = `interrupt ${interruptId} changed since it was read (payload_digest ${expect.payloadDigest} is not the current ${item.payloadDigest}, revision ${item.revision}); reload it and answer again`;
    return rejectAnswer(item, principal, { ok: false, code: "stale_payload", message }, now);
  }
  const earlier = isQuorumItem(item) ? earlierVote(item, principal.sub) : undefined;
  if (earlier !== undefined) return rejectAnswer(item, principal, alreadyVoted(item, earlier), now);
  let stored: unknown;
  let storedEdits: ResumeEdits | undefined;
  try {
    stored = cloneJson(value);
    storedEdits = edits === undefined || (edits.update === undefined && edits.goto === undefined) ? undefined : cloneJson(edits);
  } catch (error) {
    const message = `the response is not JSON: ${error instanceof Error ? error.message : String(error)}`;
    return rejectAnswer(item, principal, { ok: false, code: "invalid_argument", message }, now);
  }
  if (item.action !== undefined) {
    // One action of several: only the response types its config allows, in its shape.
    const checked = checkActionAnswer(item.interruptId, item.action, stored);
    if (!checked.ok) return rejectAnswer(item, principal, { ok: false, code: "invalid_argument", message: checked.message }, now);
    stored = checked.value;
  }
  const schema = item.routing.responseSchema;
  const invalid = schema === undefined ? undefined : validateJson(schema, stored);
  if (invalid !== undefined) {
    const message = `the response does not match the review's responseSchema: ${invalid}`;
    return rejectAnswer(item, principal, { ok: false, code: "invalid_argument", message }, now);
  }
  const by = actor(principal);
  if (isQuorumItem(item)) {
    const vote: Vote = { by, at: iso(now), verdict: verdictOf(stored), value: stored, stage: item.stage, revision: item.revision };
    if (storedEdits !== undefined) vote.edits = storedEdits;
    const cast = castVote(item, vote, iso(now));
    return { result: { ok: true, item: cast.next, changed: true, vote: cast.result }, next: cast.next, audit: cast.audit };
  }
  const held = activeClaim(item, now);
  const answer: NonNullable<ReviewItem["answer"]> = { value: stored, by, at: iso(now) };
  if (storedEdits !== undefined) answer.edits = storedEdits;
  const next: ReviewItem = { ...item, status: "answered", claim: null, answer };
  const entry: AuditEntry = { interruptId, at: iso(now), kind: "answered", by, detail: { value: stored } };
  if (held !== null && held.by.sub !== by.sub) entry.detail = { value: stored, overrodeClaimOf: held.by };
  return { result: { ok: true, item: next, changed: true }, next, audit: [entry] };
}

/** Moves a pending item to another queue or candidates (quorum.ts planReassign says who may). */
export function decideReassign(item: ReviewItem | undefined, interruptId: string, principal: Principal, target: ReassignTarget, now: number): Transition {
  if (item === undefined) return unknown(interruptId);
  if (principal.tenant !== item.tenant) return refuse({ ok: false, code: "permission_denied", message: `interrupt ${interruptId} belongs to another tenant` });
  const final = stateRefusal(item, now);
  if (final !== undefined) return refuse(final);
  const plan = planReassign(item, principal, target);
  if ("ok" in plan) return refuse(plan);
  const next: ReviewItem = { ...item, routing: plan.routing, status: "open", claim: null };
  const audit = [reassignedAudit(item, next, actor(principal), target.reason, plan.delegated, iso(now))];
  return { result: { ok: true, item: next, changed: true }, next, audit };
}

export function decideClaim(item: ReviewItem | undefined, interruptId: string, principal: Principal, ttlMs: number, now: number): Transition {
  if (item === undefined) return unknown(interruptId);
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0 || ttlMs > MAX_CLAIM_TTL_MS) {
    return refuse({ ok: false, code: "invalid_argument", message: `ttl_ms must be an integer in 1..${MAX_CLAIM_TTL_MS}` });
  }
  const verdict = mayClaim(principal, item, now);
  if (!verdict.ok) return refuse(verdict);
  const by = actor(principal);
  const renewed = activeClaim(item, now) !== null;
  const until = iso(now + ttlMs);
  const next: ReviewItem = { ...item, status: "claimed", claim: { by, until } };
  const audit: AuditEntry[] = [{ interruptId, at: iso(now), kind: "claimed", by, detail: { until, renewed } }];
  return { result: { ok: true, item: next, changed: true }, next, audit };
}

export function decideRelease(item: ReviewItem | undefined, interruptId: string, principal: Principal, now: number): Transition {
  if (item === undefined) return unknown(interruptId);
  const verdict = mayRelease(principal, item, now);
  if (!verdict.ok) return refuse(verdict);
  const held = activeClaim(item, now);
  // Nothing held (or the lease lapsed and tick() has yet to free it): a no-op.
  if (held === null) return { result: { ok: true, item, changed: false }, audit: [] };
  const by = actor(principal);
  const next: ReviewItem = { ...item, status: "open", claim: null };
  const detail = held.by.sub === by.sub ? undefined : { holder: held.by };
  const entry: AuditEntry = { interruptId, at: iso(now), kind: "released", by };
  if (detail !== undefined) entry.detail = detail;
  return { result: { ok: true, item: next, changed: true }, next, audit: [entry] };
}

/** A claimed item whose lease lapsed, opened again; undefined if its lease is still live. */
export function lapseClaim(item: ReviewItem, now: number): { lapsed: LapsedClaim; audit: AuditEntry[] } | undefined {
  if (item.status !== "claimed" || item.claim === null || activeClaim(item, now) !== null) return undefined;
  const { by, until } = item.claim;
  const next: ReviewItem = { ...item, status: "open", claim: null };
  const entry: AuditEntry = { interruptId: item.interruptId, at: iso(now), kind: "claim_expired", by, detail: { until } };
  return { lapsed: { item: next, holder: by, until }, audit: [entry] };
}

/** A pending item past its deadline, expired by its policy (timers.ts); undefined if not due or kept pending. */
export function expireItem(item: ReviewItem, now: number): { expired: ExpiredItem; audit: AuditEntry[] } | undefined {
  return expire(item, now);
}

/** A pending item voided because its run or thread ended; undefined if already final. */
export function cancelItem(item: ReviewItem, now: number, reason: string): { next: ReviewItem; audit: AuditEntry[] } | undefined {
  if (!isPending(item.status)) return undefined;
  const next: ReviewItem = { ...item, status: "cancelled", claim: null };
  return { next, audit: [{ interruptId: item.interruptId, at: iso(now), kind: "cancelled", reason }] };
}

/**
 * The answers of one run not yet handed to a resume, if the policy says to
 * resume now; the items returned get `resumedAt` so no answer is resumed
 * twice. `batch` waits while any item of the run is pending; expired items
 * with a default or a denial count as answered, expired ones without cannot be.
 */
export function planResume(
  runItems: readonly ReviewItem[],
  policy: ResumePolicy,
  now: number,
  resumeRunId: string,
): { batch: ResumeBatch; next: ReviewItem[] } | undefined {
  if (policy === "batch" && runItems.some((i) => isPending(i.status))) return undefined;
  // The actions of one interrupt resume together, once every one is decided.
  const groups = completeGroups(runItems);
  const ready = runItems.filter(
    (i) =>
      i.resumedAt === null &&
      (i.action === undefined || groups.has(i.action.interruptId)) &&
      (i.status === "answered" || (i.status === "expired" && expiryValue(i) !== undefined)),
  );
  if (ready.length === 0) return undefined;
  const next = ready.map((i): ReviewItem => ({ ...i, resumedAt: iso(now), resumeRunId }));
  const [batch] = batchesOf(next);
  return batch && { batch, next };
}

/**
 * The resume batches the items were taken into (by resumeRunId, in item
 * order); defaults for expired ones. The actions of one interrupt become one
 * answer to it: their decisions in action order, in the interrupt's shape.
 */
export function batchesOf(items: readonly ReviewItem[]): ResumeBatch[] {
  const batches = new Map<string, ResumeBatch>();
  const groups = new Map<string, { batch: ResumeBatch; action: NonNullable<ReviewItem["action"]>; decisions: unknown[]; filled: number; defaulted: boolean }>();
  const answer = (batch: ResumeBatch, item: ReviewItem, value: unknown, defaulted: boolean) => {
    const action = item.action;
    if (action === undefined) {
      batch.answers[item.interruptId] = value;
      if (defaulted) batch.defaulted.push(item.interruptId);
      return;
    }
    const key = `${batch.resumeRunId}\u0000${action.interruptId}`;
    const group = groups.get(key) ?? { batch, action, decisions: new Array<unknown>(action.count).fill(null), filled: 0, defaulted: false };
    group.decisions[action.index] = value;
    group.filled++;
    group.defaulted ||= defaulted;
    groups.set(key, group);
  };
  for (const item of items) {
    if (item.resumeRunId === null) continue;
    let batch = batches.get(item.resumeRunId);
    if (batch === undefined) {
      batch = { runId: item.runId, resumeRunId: item.resumeRunId, threadId: item.threadId, tenant: item.tenant, answers: {}, defaulted: [], edits: {}, startedBy: item.startedBy };
      batches.set(item.resumeRunId, batch);
    }
    if (item.status === "answered" && item.answer !== null) {
      answer(batch, item, item.answer.value, false);
      const edits = item.answer.edits;
      if (edits?.update !== undefined) batch.edits.update = { ...batch.edits.update, ...edits.update };
      if (edits?.goto !== undefined && edits.goto.length > 0) batch.edits.goto = [...(batch.edits.goto ?? []), ...edits.goto];
    } else {
      answer(batch, item, expiryValue(item)?.value ?? null, true);
    }
  }
  for (const { batch, action, decisions, filled, defaulted } of groups.values()) {
    // Taken only whole (planResume); a part alone would answer the interrupt with holes.
    if (filled !== action.count) continue;
    batch.answers[action.interruptId] = groupResumeValue(action.format, decisions);
    if (defaulted) batch.defaulted.push(action.interruptId);
  }
  return [...batches.values()];
}

/** An item of the batch, marked applied; undefined when it already was (or was never taken). */
export function applyItem(item: ReviewItem, now: number): ReviewItem | undefined {
  if (item.resumeRunId === null || item.appliedAt !== null) return undefined;
  return { ...item, appliedAt: iso(now) };
}
