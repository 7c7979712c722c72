/**
 * MemoryWebhookOutbox: webhook deliveries in process memory (a hub without a
 * data dir: nothing survives a restart there). Each call reads and writes
 * with no await in between, so claims are atomic on the one JS thread.
 */
import { cloneJson } from "../../review/transitions.ts";
import { appendAttempt, type StoredEndpoint, type AttemptOutcome, type DeliveryAttempt, type DeliveryFilter, type NewDelivery, type WebhookDelivery, type WebhookOutbox } from "../../review/webhooks/outbox.ts";

interface Row {
  delivery: WebhookDelivery;
  lease: string | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export class MemoryWebhookOutbox implements WebhookOutbox {
  readonly #rows = new Map<string, Row>();
  readonly #endpoints = new Map<string, StoredEndpoint>();
  #seq = 0;

  async putEndpoint(endpoint: StoredEndpoint, now: number): Promise<StoredEndpoint> {
    const key = `${endpoint.tenant}\u0000${endpoint.id}`;
    const at = iso(now);
    const stored = { ...cloneJson(endpoint), createdAt: this.#endpoints.get(key)?.createdAt ?? at, updatedAt: at };
    this.#endpoints.set(key, stored);
    return cloneJson(stored);
  }

  async listEndpoints(tenant?: string): Promise<StoredEndpoint[]> {
    return [...this.#endpoints.values()]
      .filter((e) => tenant === undefined || e.tenant === tenant)
      .sort((a, b) => a.tenant.localeCompare(b.tenant) || a.id.localeCompare(b.id))
      .map((e) => cloneJson(e));
  }

  async deleteEndpoint(tenant: string, id: string): Promise<boolean> {
    return this.#endpoints.delete(`${tenant}\u0000${id}`);
  }

  async enqueue(deliveries: readonly NewDelivery[], now: number): Promise<void> {
    for (const d of deliveries) {
      if (this.#rows.has(d.id)) continue;
      this.#seq += 1;
      const at = iso(now);
      this.#rows.set(d.id, { lease: null, delivery: { ...cloneJson(d), seq: this.#seq, status: "pending", attempts: [], tries: 0, nextAttemptAt: at, createdAt: at, updatedAt: at } });
    }
  }

  async claimDue(now: number, limit: number, leaseMs: number, lease: string): Promise<WebhookDelivery[]> {
    const at = iso(now);
    const due = [...this.#rows.values()]
      .filter((r) => r.delivery.status === "pending" && r.delivery.nextAttemptAt !== null && r.delivery.nextAttemptAt <= at)
      .sort((a, b) => (a.delivery.nextAttemptAt ?? "").localeCompare(b.delivery.nextAttemptAt ?? "") || a.delivery.seq - b.delivery.seq)
      .slice(0, limit);
    for (const row of due) {
      row.lease = lease;
      row.delivery = { ...row.delivery, nextAttemptAt: iso(now + leaseMs), updatedAt: at };
    }
    return due.map((r) => cloneJson(r.delivery));
  }

  async recordAttempt(id: string, lease: string, attempt: DeliveryAttempt, outcome: AttemptOutcome, now: number): Promise<boolean> {
    const row = this.#rows.get(id);
    if (row === undefined || row.lease !== lease || row.delivery.status !== "pending") return false;
    const d = row.delivery;
    row.lease = null;
    row.delivery = { ...d, attempts: appendAttempt(d.attempts, cloneJson(attempt)), tries: d.tries + 1, status: outcome.status, nextAttemptAt: outcome.nextAttemptAt, updatedAt: iso(now) };
    return true;
  }

  async list(filter: DeliveryFilter): Promise<WebhookDelivery[]> {
    const out: WebhookDelivery[] = [];
    for (const { delivery: d } of this.#rows.values()) {
      if (d.tenant !== filter.tenant || (filter.status !== undefined && d.status !== filter.status)) continue;
      if ((filter.endpointId !== undefined && d.endpointId !== filter.endpointId) || d.seq <= (filter.after ?? 0)) continue;
      out.push(cloneJson(d));
      if (out.length >= filter.limit) break;
    }
    return out;
  }

  async get(tenant: string, id: string): Promise<WebhookDelivery | undefined> {
    const row = this.#rows.get(id);
    return row && row.delivery.tenant === tenant ? cloneJson(row.delivery) : undefined;
  }

  async replay(tenant: string, id: string, now: number): Promise<WebhookDelivery | undefined> {
    const row = this.#rows.get(id);
    if (row === undefined || row.delivery.tenant !== tenant) return undefined;
    if (row.delivery.status === "failed") {
      row.lease = null;
      row.delivery = { ...row.delivery, status: "pending", tries: 0, nextAttemptAt: iso(now), updatedAt: iso(now) };
    }
    return cloneJson(row.delivery);
  }

  async nextDue(): Promise<string | null> {
    let min: string | null = null;
    for (const { delivery: d } of this.#rows.values()) {
      if (d.status === "pending" && d.nextAttemptAt !== null && (min === null || d.nextAttemptAt < min)) min = d.nextAttemptAt;
    }
    return min;
  }

  async prune(before: number, limit: number): Promise<number> {
    const cutoff = iso(before);
    const old = [...this.#rows.values()]
      .map((r) => r.delivery)
      .filter((d) => d.status !== "pending" && d.updatedAt < cutoff)
      .sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.seq - b.seq))
      .slice(0, limit);
    for (const d of old) this.#rows.delete(d.id);
    return old.length;
  }

  async close(): Promise<void> {}
}
