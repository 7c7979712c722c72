/**
 * Who may view, claim, release and answer a review item: pure functions of
 * (principal, item, now), so every store backend decides the same way inside
 * its own atomic section. Order of checks: tenant, role, candidacy,
 * self-approval, then the item's state, then the claim, so a principal who
 * may not answer learns nothing about who did.
 *
 * Rules: answering needs the `reviewer` role (observers and operators never
 * answer); candidates are the routing's users (by sub) or roles, or every
 * reviewer of the tenant when both lists are empty; `admin` is a candidate
 * everywhere; the run's starter may not answer unless allowSelfApproval; a
 * live claim by someone else blocks answering unless the principal holds an
 * override role (or `admin`).
 */
import { ADMIN_ROLE, canPerform, hasRole } from "../auth/index.ts";
import type { Principal } from "../auth/index.ts";
import { assertNever } from "../protocol/index.ts";
import { keepsPending } from "./timers.ts";
import type { Refusal, ReviewItem, Verdict } from "./types.ts";

const OK: Verdict = { ok: true };

function deny(message: string): Refusal {
  return { ok: false, code: "permission_denied", message };
}

function isAdmin(principal: Principal): boolean {
  return principal.roles.includes(ADMIN_ROLE);
}

export function isCandidate(principal: Principal, item: ReviewItem): boolean {
  const { users, roles } = item.routing;
  if (isAdmin(principal)) return true;
  if (users.length === 0 && roles.length === 0) return true;
  return users.includes(principal.sub) || roles.some((role) => principal.roles.includes(role));
}

export function hasOverride(principal: Principal, item: ReviewItem): boolean {
  return isAdmin(principal) || item.routing.overrideRoles.some((role) => principal.roles.includes(role));
}

/** The claim, if one is held and its lease has not lapsed at `now`. */
export function activeClaim(item: ReviewItem, now: number): ReviewItem["claim"] {
  return item.claim !== null && Date.parse(item.claim.until) > now ? item.claim : null;
}

/**
 * Whether the deadline has passed and ends the item (it may still say open
 * until tick() expires it); a `keep` item stays answerable past it.
 */
export function isDue(item: ReviewItem, now: number): boolean {
  return item.expiresAt !== null && Date.parse(item.expiresAt) <= now && !keepsPending(item);
}

/** Observers of the tenant see every item; others only those they could answer or override. */
export function mayView(principal: Principal, item: ReviewItem): Verdict {
  if (principal.tenant !== item.tenant) return deny(`interrupt ${item.interruptId} belongs to another tenant`);
  // The observer role itself, not "may read the thread" (which reviewers have too):
  // a reviewer sees only the items routed to them.
  if (hasRole(principal, "observer") || hasOverride(principal, item)) return OK;
  if (canPerform(principal, "answer") && isCandidate(principal, item)) return OK;
  return deny(`${principal.sub} may not see interrupt ${item.interruptId}`);
}

/** Whether the principal is someone who may ever act on this item (tenant, role, candidacy, self). */
export function mayAct(principal: Principal, item: ReviewItem): Verdict {
  const id = item.interruptId;
  if (principal.tenant !== item.tenant) return deny(`interrupt ${id} belongs to another tenant`);
  if (!canPerform(principal, "answer")) {
    return deny(`answering needs the "reviewer" role; ${principal.sub} has [${principal.roles.join(", ")}]`);
  }
  if (!isCandidate(principal, item)) {
    const { users, roles } = item.routing;
    return deny(`${principal.sub} is not a candidate for interrupt ${id} (users [${users.join(", ")}], roles [${roles.join(", ")}])`);
  }
  if (principal.sub === item.startedBy && !item.routing.allowSelfApproval) {
    return deny(`${principal.sub} started this run and may not approve it (allowSelfApproval is off)`);
  }
  return OK;
}

/** Refusal for an item that no longer waits for an answer, or undefined while it does. */
export function stateRefusal(item: ReviewItem, now: number): Refusal | undefined {
  const id = item.interruptId;
  switch (item.status) {
    case "answered": {
      const answer = item.answer;
      if (answer === null) throw new Error(`review item ${id} is answered but has no answer`);
      return {
        ok: false,
        code: "already_answered",
        message: `interrupt ${id} was already answered by ${answer.by.name} (${answer.by.sub}) at ${answer.at}`,
        winner: { ...answer.by },
        answeredAt: answer.at,
      };
    }
    case "expired":
      return { ok: false, code: "interrupt_expired", message: `interrupt ${id} expired at ${item.expiresAt ?? "?"}` };
    case "cancelled":
      return { ok: false, code: "interrupt_cancelled", message: `interrupt ${id} was cancelled with its run` };
    case "open":
    case "claimed":
      if (isDue(item, now)) return { ok: false, code: "interrupt_expired", message: `interrupt ${id} expired at ${item.expiresAt ?? "?"}` };
      return undefined;
    default:
      return assertNever(item.status, "review status");
  }
}

function claimHeld(item: ReviewItem, claim: NonNullable<ReviewItem["claim"]>): Refusal {
  return {
    ok: false,
    code: "claim_held",
    message: `interrupt ${item.interruptId} is claimed by ${claim.by.name} (${claim.by.sub}) until ${claim.until}`,
    claimedBy: { ...claim.by },
    until: claim.until,
  };
}

/** Taking or renewing the lease: a live claim by someone else blocks it, even for overriders. */
export function mayClaim(principal: Principal, item: ReviewItem, now: number): Verdict {
  const refusal = mayAct(principal, item);
  if (!refusal.ok) return refusal;
  const stale = stateRefusal(item, now);
  if (stale !== undefined) return stale;
  const claim = activeClaim(item, now);
  if (claim !== null && claim.by.sub !== principal.sub) return claimHeld(item, claim);
  return OK;
}

/** Giving the lease back: its holder, or an overrider. Releasing a free item is allowed (a no-op). */
export function mayRelease(principal: Principal, item: ReviewItem, now: number): Verdict {
  if (principal.tenant !== item.tenant) return deny(`interrupt ${item.interruptId} belongs to another tenant`);
  const stale = stateRefusal(item, now);
  if (stale !== undefined) return stale;
  const claim = activeClaim(item, now);
  if (claim === null || claim.by.sub === principal.sub || hasOverride(principal, item)) return OK;
  return deny(`${principal.sub} does not hold the claim on interrupt ${item.interruptId} and has no override role`);
}

export function mayAnswer(principal: Principal, item: ReviewItem, now: number): Verdict {
  const refusal = mayAct(principal, item);
  if (!refusal.ok) return refusal;
  const stale = stateRefusal(item, now);
  if (stale !== undefined) return stale;
  const claim = activeClaim(item, now);
  if (claim !== null && claim.by.sub !== principal.sub && !hasOverride(principal, item)) return claimHeld(item, claim);
  return OK;
}
