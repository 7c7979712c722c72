/**
 * The JSON body of a webhook: `{ type, timestamp, data }` (the Standard
 * Webhooks payload shape). `data` names the tenant, thread, run and — for
 * review events — the item's queue, then carries the wire event's own data
 * (docs/PROTOCOL.md, "Webhooks"). Run ends are `run.<status>`.
 */
import type { ProtocolEvent } from "../../protocol/index.ts";
import type { ReviewItem } from "../types.ts";

/** What the hub hands the webhook dispatcher: one event, with what filters need. */
export interface WebhookEventInput {
  type: string;
  tenant: string;
  /** Review events: the item's queue (queue filters match it); run events have none. */
  queue: string | null;
  /** Review events: the item (answer links are minted for its candidates). */
  item?: ReviewItem;
  at: number;
  data: Record<string, unknown>;
}

export interface WebhookBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The types an endpoint gets when its config names none. */
export const DEFAULT_WEBHOOK_EVENTS = ["input.requested", "input.answered", "input.expired", "input.cancelled", "run.completed", "run.failed"] as const;

/** A review event (any method the review service publishes) as a webhook event. */
export function reviewWebhookEvent(item: ReviewItem, event: ProtocolEvent): WebhookEventInput {
  const wire = event.params.data;
  const own = typeof wire === "object" && wire !== null && !Array.isArray(wire) ? (wire as Record<string, unknown>) : { value: wire };
  const data: Record<string, unknown> = {
    tenant: item.tenant,
    thread_id: item.threadId,
    run_id: item.runId,
    interrupt_id: item.interruptId,
    queue: item.routing.queue,
    ...own,
  };
  return { type: event.method, tenant: item.tenant, queue: item.routing.queue, item, at: event.params.timestamp, data };
}

/** A run's end as a webhook event (`run.completed`, `run.failed`, …). */
export function runWebhookEvent(run: { runId: string; threadId: string; tenant: string }, status: string, at: number, error?: string): WebhookEventInput {
  const data: Record<string, unknown> = { tenant: run.tenant, thread_id: run.threadId, run_id: run.runId, status };
  if (error !== undefined) data["error"] = error;
  return { type: `run.${status}`, tenant: run.tenant, queue: null, at, data };
}

/** The body as sent; a `data.payload` that would make it larger than `maxBytes` is left out (`payload_omitted: true`). */
export function encodeWebhookBody(event: WebhookEventInput, extra: Record<string, unknown>, maxBytes: number): string {
  const body: WebhookBody = { type: event.type, timestamp: new Date(event.at).toISOString(), data: { ...event.data, ...extra } };
  const text = JSON.stringify(body);
  if (Buffer.byteLength(text) <= maxBytes || !("payload" in body.data)) return text;
  const { payload: _dropped, ...rest } = body.data;
  void _dropped;
  return JSON.stringify({ ...body, data: { ...rest, payload_omitted: true } });
}
