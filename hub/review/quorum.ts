/**
 * Decisions that take more than one answer, and approvals bound to what was
 * seen: quorum votes (`any`, `all`, `k_of_n`, `rejectEnds`), ordered stages,
 * the payload digest and its revision, and reassignment. Pure functions of
 * (item, principal, input, now), called by transitions.ts inside each store
 * backend's atomic section, like every other review rule.
 *
 * Rules:
 * - A quorum item is one with stages or a quorum other than `any`; `any`
 *   without stages is today's first-answer-wins, untouched.
 * - Each candidate votes once per item and revision (`already_voted`); a vote
 *   is an approval unless its value is `false`, or an object whose `type` is
 *   "reject" or "ignore", or whose `approved` is `false` (verdictOf).
 * - A stage is met when `required` votes approve (`all`: every user in the
 *   stage's `users`; `k_of_n`: `k`; `any`: 1); the next stage's candidates
 *   may vote only then. The last stage met answers the item with the value
 *   of the vote that met it (its edits too).
 * - A reject ends the item when the stage's `rejectEnds` (default true);
 *   otherwise only once the stage's listed users can no longer reach
 *   `required`. It answers the item with the rejecting vote's value.
 * - Votes of an earlier revision (cast before the state was edited or the
 *   question re-raised) no longer count, and their voters may vote again.
 */
import { createHash } from "node:crypto";
import type { Principal } from "../auth/index.ts";
import { hasOverride, mayAct } from "./policy.ts";
import type { Actor, AuditEntry, Quorum, ReassignTarget, Refusal, ReviewItem, Routing, Vote, VoteVerdict } from "./types.ts";

export const ANY_QUORUM: Quorum = { mode: "any" };

/** Progress of the stage a vote counted in: enough to print `2 of 3 approved: Rita, Sam`. */
export interface QuorumProgress {
  approved: number;
  rejected: number;
  required: number;
  /** Names of those whose approvals count, in vote order. */
  approvers: string[];
  rejecters: string[];
  stage: number;
  stages: number;
  stageName: string | null;
}

/** What a vote did: still waiting, moved to the next stage, or decided the item. */
export type VoteOutcome = "pending" | "stage_approved" | "approved" | "rejected";

export interface VoteResult {
  vote: Vote;
  progress: QuorumProgress;
  outcome: VoteOutcome;
}

/** JSON text with object keys sorted at every depth: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** sha-256 hex of the canonical JSON of `{ payload, revision }`. */
export function payloadDigest(payload: unknown, revision: number): string {
  return createHash("sha256").update(canonicalJson({ payload, revision })).digest("hex");
}

export function verdictOf(value: unknown): VoteVerdict {
  if (value === false) return "reject";
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (record["type"] === "reject" || record["type"] === "ignore" || record["approved"] === false) return "reject";
  }
  return "approve";
}

/** Whether answers to the item are votes (stages, or a quorum other than `any`). */
export function isQuorumItem(item: Pick<ReviewItem, "routing">): boolean {
  const { quorum, stages } = item.routing;
  return (stages !== undefined && stages.length > 0) || (quorum !== undefined && quorum.mode !== "any");
}

/** The rule of the item's current stage. */
export function quorumOf(item: Pick<ReviewItem, "routing" | "stage">): Quorum {
  return item.routing.stages?.[item.stage]?.quorum ?? item.routing.quorum ?? ANY_QUORUM;
}

/** Approvals the rule needs, for these candidates. */
export function requiredOf(quorum: Quorum, users: readonly string[]): number {
  switch (quorum.mode) {
    case "any":
      return 1;
    case "all":
      return users.length;
    case "k_of_n":
      return quorum.k ?? 1;
  }
}

/** Why a rule cannot be met by these candidates, or undefined if it can. */
export function unsatisfiable(quorum: Quorum, users: readonly string[], roles: readonly string[]): string | undefined {
  if (quorum.mode === "all" && users.length === 0) return `quorum "all" needs a users list (it counts every listed user)`;
  if (quorum.mode === "all" && roles.length > 0) return `quorum "all" counts the listed users; roles cannot be part of it`;
  if (quorum.mode === "k_of_n") {
    const k = quorum.k;
    if (k === undefined || !Number.isSafeInteger(k) || k < 1) return `quorum "k_of_n" needs an integer k ≥ 1`;
    if (roles.length === 0 && users.length > 0 && users.length < k) return `quorum k_of_n with k ${k} cannot be met by ${users.length} users`;
  }
  return undefined;
}

/**
 * Routing as stored at creation: each stage without candidates of its own
 * takes the item's, and the item's candidates become the first stage's.
 */
export function withStageCandidates(routing: Routing): Routing {
  if (routing.stages === undefined || routing.stages.length === 0) return routing;
  const stages = routing.stages.map((s) => (s.users.length === 0 && s.roles.length === 0 ? { ...s, users: [...routing.users], roles: [...routing.roles] } : s));
  const first = stages[0]!;
  return { ...routing, stages, users: [...first.users], roles: [...first.roles] };
}

function countedVotes(item: ReviewItem, stage: number): Vote[] {
  return item.votes.filter((v) => v.stage === stage && v.revision === item.revision);
}

/** Progress of one stage (the current one by default) from the votes that count. */
export function progressOf(item: ReviewItem, stage: number = item.stage): QuorumProgress {
  const stages = item.routing.stages ?? [];
  const quorum = stages[stage]?.quorum ?? item.routing.quorum ?? ANY_QUORUM;
  const users = stages[stage]?.users ?? item.routing.users;
  const votes = countedVotes(item, stage);
  // Under `all` only the listed users' approvals count toward it.
  const approvals = votes.filter((v) => v.verdict === "approve" && (quorum.mode !== "all" || users.includes(v.by.sub)));
  const rejections = votes.filter((v) => v.verdict === "reject");
  return {
    approved: approvals.length,
    rejected: rejections.length,
    required: requiredOf(quorum, users),
    approvers: approvals.map((v) => v.by.name),
    rejecters: rejections.map((v) => v.by.name),
    stage,
    stages: Math.max(stages.length, 1),
    stageName: stages[stage]?.name ?? null,
  };
}

/** `2 of 3 approved: Rita, Sam` (with the stage's name when there are stages). */
export function describeProgress(p: QuorumProgress): string {
  const stage = p.stageName === null ? "" : `${p.stageName} (stage ${p.stage + 1} of ${p.stages}): `;
  const names = p.approvers.length > 0 ? `: ${p.approvers.join(", ")}` : "";
  const rejected = p.rejected > 0 ? `; ${p.rejected} rejected: ${p.rejecters.join(", ")}` : "";
  return `${stage}${p.approved} of ${p.required} approved${names}${rejected}`;
}

/** The voter's earlier vote that still counts, if any. */
export function earlierVote(item: ReviewItem, sub: string): Vote | undefined {
  return item.votes.find((v) => v.by.sub === sub && v.revision === item.revision);
}

export function alreadyVoted(item: ReviewItem, vote: Vote): Refusal {
  return {
    ok: false,
    code: "already_voted",
    message: `${vote.by.name} (${vote.by.sub}) already voted ${vote.verdict} on interrupt ${item.interruptId} at ${vote.at}; each candidate votes once`,
    votedAt: vote.at,
    verdict: vote.verdict,
  };
}

/**
 * The item after one accepted vote (the caller checked who may answer, the
 * value, the digest and that the voter has not voted), with its audit lines.
 */
export function castVote(item: ReviewItem, vote: Vote, now: string): { next: ReviewItem; audit: AuditEntry[]; result: VoteResult } {
  const voted: ReviewItem = { ...item, votes: [...item.votes, vote] };
  const progress = progressOf(voted, vote.stage);
  const quorum = quorumOf(voted);
  const stages = voted.routing.stages ?? [];
  const users = stages[vote.stage]?.users ?? voted.routing.users;
  const rejectEnds = quorum.rejectEnds ?? true;
  // With only listed users, enough rejections make the rule impossible.
  const reachable = voted.routing.roles.length > 0 || users.length === 0 || users.length - progress.rejected >= progress.required;
  let outcome: VoteOutcome = "pending";
  if (vote.verdict === "reject" && (rejectEnds || !reachable)) outcome = "rejected";
  else if (progress.approved >= progress.required) outcome = vote.stage + 1 < stages.length ? "stage_approved" : "approved";

  let next: ReviewItem;
  if (outcome === "approved" || outcome === "rejected") {
    const answer: NonNullable<ReviewItem["answer"]> = { value: vote.value, by: vote.by, at: now };
    if (vote.edits !== undefined) answer.edits = vote.edits;
    next = { ...voted, status: "answered", claim: null, answer };
  } else if (outcome === "stage_approved") {
    const stage = stages[vote.stage + 1]!;
    next = { ...voted, stage: vote.stage + 1, status: "open", claim: null, routing: { ...voted.routing, users: [...stage.users], roles: [...stage.roles] } };
  } else {
    // The voter's own claim ends with the vote; someone else's (overridden) stays.
    const claim = voted.claim !== null && voted.claim.by.sub === vote.by.sub ? null : voted.claim;
    next = { ...voted, claim, status: claim === null ? "open" : "claimed" };
  }
  const detail: Record<string, unknown> = { verdict: vote.verdict, value: vote.value, stage: vote.stage, outcome, progress };
  const audit: AuditEntry[] = [{ interruptId: item.interruptId, at: now, kind: "voted", by: vote.by, detail }];
  if (next.status === "answered") {
    audit.push({ interruptId: item.interruptId, at: now, kind: "answered", by: vote.by, detail: { value: vote.value, decidedBy: outcome, votes: countedVotes(next, vote.stage).length } });
  }
  return { next, audit, result: { vote, progress, outcome } };
}

/** A pending item at its next revision (the state was edited, or the question re-raised with another payload). */
export function reviseItem(item: ReviewItem, now: string, reason: string, payload: unknown = item.payload): { next: ReviewItem; audit: AuditEntry[] } {
  const revision = item.revision + 1;
  const next: ReviewItem = { ...item, payload, revision, payloadDigest: payloadDigest(payload, revision) };
  const audit: AuditEntry[] = [{ interruptId: item.interruptId, at: now, kind: "revised", reason, detail: { revision, payloadDigest: next.payloadDigest } }];
  return { next, audit };
}

function deny(message: string): Refusal {
  return { ok: false, code: "permission_denied", message };
}

function invalid(message: string): Refusal {
  return { ok: false, code: "invalid_argument", message };
}

/**
 * Who may move an item: `admin` or an override role may change its queue,
 * users and roles; a user named in the item's current `users` who has not
 * voted may delegate — hand their place to the named `users` (queue and roles
 * unchanged). The claim ends; the new candidates see the item.
 */
export function planReassign(item: ReviewItem, principal: Principal, target: ReassignTarget): { routing: Routing; delegated: boolean } | Refusal {
  const id = item.interruptId;
  if (principal.tenant !== item.tenant) return deny(`interrupt ${id} belongs to another tenant`);
  if (target.queue === undefined && target.users === undefined && target.roles === undefined) {
    return invalid("input.reassign needs queue, users or roles");
  }
  let users = target.users === undefined ? [...item.routing.users] : [...new Set(target.users)];
  let roles = target.roles === undefined ? [...item.routing.roles] : [...new Set(target.roles)];
  const queue = target.queue ?? item.routing.queue;
  let delegated = false;
  if (!hasOverride(principal, item)) {
    const may = mayAct(principal, item);
    if (!may.ok) return may;
    if (target.queue !== undefined || target.roles !== undefined || target.users === undefined || target.users.length === 0) {
      return deny(`only admin or an override role (${item.routing.overrideRoles.join(", ")}) may move interrupt ${id} to a queue or roles; a candidate may delegate to named users`);
    }
    if (!item.routing.users.includes(principal.sub)) {
      return deny(`${principal.sub} is not named in the users of interrupt ${id}, so has no place to delegate (an override role may reassign it)`);
    }
    const vote = earlierVote(item, principal.sub);
    if (vote !== undefined) return alreadyVoted(item, vote);
    users = [...new Set([...item.routing.users.filter((u) => u !== principal.sub), ...target.users])];
    roles = [...item.routing.roles];
    delegated = true;
  }
  if (users.length === 0 && roles.length === 0 && target.users !== undefined && target.roles !== undefined) {
    return invalid("input.reassign with empty users and roles would open the item to every reviewer; name someone");
  }
  const quorum = quorumOf(item);
  const why = isQuorumItem(item) ? unsatisfiable(quorum, users, roles) : undefined;
  if (why !== undefined) return invalid(`the reassigned candidates cannot meet the item's rule: ${why}`);
  const routing: Routing = { ...item.routing, queue, users, roles };
  if (routing.stages !== undefined && routing.stages[item.stage] !== undefined) {
    routing.stages = routing.stages.map((s, i) => (i === item.stage ? { ...s, users: [...users], roles: [...roles] } : s));
  }
  return { routing, delegated };
}

export function reassignedAudit(item: ReviewItem, next: ReviewItem, by: Actor, reason: string | undefined, delegated: boolean, now: string): AuditEntry {
  const side = (r: Routing) => ({ queue: r.queue, users: [...r.users], roles: [...r.roles] });
  const entry: AuditEntry = { interruptId: item.interruptId, at: now, kind: "reassigned", by, detail: { from: side(item.routing), to: side(next.routing), delegated } };
  if (reason !== undefined) entry.reason = reason;
  return entry;
}

/** What the SQL backends keep in their one `workflow_json` column. */
export interface WorkflowRecord {
  votes: Vote[];
  stage: number;
  revision: number;
  payloadDigest: string;
}

export function workflowOf(item: ReviewItem): WorkflowRecord {
  return { votes: item.votes, stage: item.stage, revision: item.revision, payloadDigest: item.payloadDigest };
}

/** The stored record, or that of an item stored before votes and digests existed (revision 0). */
export function readWorkflow(stored: unknown, payload: unknown): WorkflowRecord {
  if (typeof stored === "object" && stored !== null) {
    const w = stored as Partial<WorkflowRecord>;
    const revision = typeof w.revision === "number" ? w.revision : 0;
    return {
      votes: Array.isArray(w.votes) ? w.votes : [],
      stage: typeof w.stage === "number" ? w.stage : 0,
      revision,
      payloadDigest: typeof w.payloadDigest === "string" ? w.payloadDigest : payloadDigest(payload, revision),
    };
  }
  return { votes: [], stage: 0, revision: 0, payloadDigest: payloadDigest(payload, 0) };
}
