/** Review items and audit entries as REST JSON (snake_case, epoch-ms timestamps like the events). */
import { actionJson, expiryPolicyJson, expiryPolicyOf, isPending, isQuorumItem, quorumJson, type AuditEntry, type ReviewItem } from "../review/index.ts";

const ms = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));

export function reviewItemJson(item: ReviewItem) {
  const { routing } = item;
  const policy = expiryPolicyOf(routing);
  const pending = isPending(item.status);
  return {
    interrupt_id: item.interruptId,
    thread_id: item.threadId,
    run_id: item.runId,
    namespace: item.namespace,
    node: item.node,
    payload: item.payload,
    payload_digest: item.payloadDigest,
    revision: item.revision,
    status: item.status,
    queue: routing.queue,
    routing: {
      queue: routing.queue,
      users: routing.users,
      roles: routing.roles,
      allow_self_approval: routing.allowSelfApproval,
      expires_at: ms(routing.expiresAt),
      ...(policy === undefined ? {} : { on_expire: expiryPolicyJson(policy) }),
      ...(routing.escalation === undefined
        ? {}
        : { escalation: routing.escalation.map((s) => ({ after_ms: s.afterMs, ...(s.queue === undefined ? {} : { queue: s.queue }), ...(s.users ? { users: s.users } : {}), ...(s.roles ? { roles: s.roles } : {}) })) }),
      ...(routing.remind === undefined ? {} : { remind: { every_ms: routing.remind.everyMs, ...(routing.remind.max === undefined ? {} : { max: routing.remind.max }) } }),
      ...(routing.responseSchema === undefined ? {} : { response_schema: routing.responseSchema }),
    },
    claim: item.claim === null ? null : { claimed_by: item.claim.by, expires_at: ms(item.claim.until) },
    answer: item.answer === null ? null : { response: item.answer.value, answered_by: item.answer.by, answered_at: ms(item.answer.at) },
    started_by: item.startedBy,
    created_at: ms(item.createdAt),
    expires_at: ms(item.expiresAt),
    resumed_at: ms(item.resumedAt),
    ...(item.action === undefined ? {} : { action: actionJson(item.action) }),
    // A `keep` item past its deadline, as the hub's timer noted it: still pending, and late.
    overdue: pending && item.overdueAt !== null,
    escalation_step: item.escalationStep,
    reminders_sent: item.remindersSent,
    next_timer_at: pending ? ms(item.nextTimerAt) : null,
    ...(isQuorumItem(item) ? { quorum: quorumJson(item), votes: item.votes.map(voteJson) } : {}),
  };
}

function voteJson(vote: ReviewItem["votes"][number]) {
  return { by: vote.by, at: Date.parse(vote.at), verdict: vote.verdict, response: vote.value, stage: vote.stage, revision: vote.revision };
}

export function auditJson(entry: AuditEntry) {
  return {
    at: Date.parse(entry.at),
    kind: entry.kind,
    ...(entry.by ? { by: entry.by } : {}),
    ...(entry.reason === undefined ? {} : { reason: entry.reason }),
    ...(entry.detail === undefined ? {} : { detail: entry.detail }),
  };
}
