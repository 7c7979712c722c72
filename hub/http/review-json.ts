/** Review items and audit entries as REST JSON (snake_case, epoch-ms timestamps like the events). */
import { actionJson, type AuditEntry, type ReviewItem } from "../review/index.ts";

const ms = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));

export function reviewItemJson(item: ReviewItem) {
  const { routing } = item;
  return {
    interrupt_id: item.interruptId,
    thread_id: item.threadId,
    run_id: item.runId,
    namespace: item.namespace,
    node: item.node,
    payload: item.payload,
    status: item.status,
    queue: routing.queue,
    routing: {
      queue: routing.queue,
      users: routing.users,
      roles: routing.roles,
      allow_self_approval: routing.allowSelfApproval,
      expires_at: ms(routing.expiresAt),
      ...(routing.onExpire ? { on_expire: routing.onExpire } : {}),
      ...(routing.responseSchema === undefined ? {} : { response_schema: routing.responseSchema }),
    },
    claim: item.claim === null ? null : { claimed_by: item.claim.by, expires_at: ms(item.claim.until) },
    answer: item.answer === null ? null : { response: item.answer.value, answered_by: item.answer.by, answered_at: ms(item.answer.at) },
    started_by: item.startedBy,
    created_at: ms(item.createdAt),
    expires_at: ms(item.expiresAt),
    resumed_at: ms(item.resumedAt),
    ...(item.action === undefined ? {} : { action: actionJson(item.action) }),
  };
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
