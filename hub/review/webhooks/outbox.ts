/**
 * The webhook outbox port: every event a webhook endpoint should get is a
 * delivery row, written when the hub publishes the event and kept until it
 * was delivered or gave up. A worker on any node claims due rows with a lease
 * (one node sends each; a node that dies mid-send lets the lease lapse and
 * another sends it again — receivers dedupe on `webhook-id`), and records
 * every attempt. Backends: hub/storage/{memory,sqlite,postgres}/webhook-outbox.ts,
 * one conformance suite (test/hub/storage/conformance/webhook-outbox.ts).
 * `now` is epoch ms from the caller's clock; times stored are ISO strings.
 */

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One try to POST a delivery. */
export interface DeliveryAttempt {
  at: string;
  ok: boolean;
  /** The receiver's HTTP status; null when none came (refused, timed out, too slow). */
  responseStatus: number | null;
  /** Why it failed (a non-2xx, a network error, the timeout), at most a few hundred bytes; null when ok. */
  error: string | null;
  durationMs: number;
  /** The node that sent it. */
  node: string;
}

export interface WebhookDelivery {
  /** `dlv_…`: this event to this endpoint. */
  id: string;
  /** Order of enqueueing (the list cursor). */
  seq: number;
  /** `msg_…`: the `webhook-id` header, the same for every attempt and every endpoint of one event. */
  eventId: string;
  tenant: string;
  endpointId: string;
  /** The event type (`input.requested`, `run.completed`, …). */
  type: string;
  /** The JSON body, exactly as signed and sent. */
  body: string;
  status: DeliveryStatus;
  /** Every attempt, oldest first (bounded: see MAX_ATTEMPTS_KEPT). */
  attempts: DeliveryAttempt[];
  /** Attempts since the delivery was enqueued or last replayed: what the retry limit counts. */
  tries: number;
  /** When a pending delivery is next due (or its lease ends); null once delivered or failed. */
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type NewDelivery = Pick<WebhookDelivery, "id" | "eventId" | "tenant" | "endpointId" | "type" | "body">;

/** What an attempt leads to: computed by retry.ts, written by the store if the lease still holds. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt: string | null;
}

export interface DeliveryFilter {
  tenant: string;
  status?: DeliveryStatus;
  endpointId?: string;
  /** Deliveries with `seq` greater than this (the previous page's last). */
  after?: number;
  limit: number;
}

export interface WebhookOutbox {
  /** Stores new pending deliveries, due now. A known id is left as it is. */
  enqueue(deliveries: readonly NewDelivery[], now: number): Promise<void>;
  /**
   * Atomically takes up to `limit` pending deliveries due by `now` for this
   * caller: each gets `lease` and is not due again before `now + leaseMs`, so
   * no other caller (node) takes it meanwhile. Oldest due first.
   */
  claimDue(now: number, limit: number, leaseMs: number, lease: string): Promise<WebhookDelivery[]>;
  /**
   * Appends the attempt and applies its outcome, only while `lease` is still
   * the delivery's (false: another caller took it after the lease lapsed).
   */
  recordAttempt(id: string, lease: string, attempt: DeliveryAttempt, outcome: AttemptOutcome, now: number): Promise<boolean>;
  /** Oldest first. */
  list(filter: DeliveryFilter): Promise<WebhookDelivery[]>;
  /** Another tenant's delivery is undefined. */
  get(tenant: string, id: string): Promise<WebhookDelivery | undefined>;
  /**
   * A failed delivery goes back to pending, due now, with a fresh retry
   * budget; its past attempts stay. Undefined when unknown (or another
   * tenant's); the delivery unchanged when it was not failed.
   */
  replay(tenant: string, id: string, now: number): Promise<WebhookDelivery | undefined>;
  /** Earliest `nextAttemptAt` of a pending delivery (ISO), or null. */
  nextDue(): Promise<string | null>;
  /**
   * Deletes up to `limit` settled (delivered or failed) deliveries last
   * updated before `before` (epoch ms), oldest first; resolves with how many.
   * A pending delivery is never pruned.
   */
  prune(before: number, limit: number): Promise<number>;

  /** Creates or replaces a tenant's REST-managed endpoint; returns the stored one. */
  putEndpoint(endpoint: StoredEndpoint, now: number): Promise<StoredEndpoint>;
  /** REST-managed endpoints: one tenant's, or every tenant's (the dispatcher's view); by tenant, then id. */
  listEndpoints(tenant?: string): Promise<StoredEndpoint[]>;
  /** False when the tenant had no such endpoint. */
  deleteEndpoint(tenant: string, id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** A webhook endpoint an admin manages over REST (hub config endpoints are not stored). */
export interface StoredEndpoint {
  tenant: string;
  id: string;
  url: string;
  /** `whsec_…`: needed to sign, so stored as is (see docs/operations.md, "Webhooks"). */
  secret: string;
  events: string[] | null;
  queues: string[] | null;
  answerLinks: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Attempts kept per delivery (the oldest go first); `tries` still counts them all. */
export const MAX_ATTEMPTS_KEPT = 50;

/** The attempt list after appending one, bounded. */
export function appendAttempt(attempts: readonly DeliveryAttempt[], attempt: DeliveryAttempt): DeliveryAttempt[] {
  const next = [...attempts, attempt];
  return next.length > MAX_ATTEMPTS_KEPT ? next.slice(next.length - MAX_ATTEMPTS_KEPT) : next;
}
