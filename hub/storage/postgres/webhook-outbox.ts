/**
 * PostgresWebhookOutbox: webhook deliveries shared by every node (table
 * hub_webhook_deliveries, hub migration 7). A claim is one UPDATE over the
 * due rows picked `FOR UPDATE SKIP LOCKED`, so nodes claiming at once take
 * different deliveries and never wait on each other; an attempt is recorded
 * only while its lease is still the delivery's.
 */
import { appendAttempt, type StoredEndpoint, type AttemptOutcome, type DeliveryAttempt, type DeliveryFilter, type DeliveryStatus, type NewDelivery, type WebhookDelivery, type WebhookOutbox } from "../../review/webhooks/outbox.ts";
import type { PostgresDatabase } from "./database.ts";

interface Row {
  seq: string;
  delivery_id: string;
  event_id: string;
  tenant: string;
  endpoint_id: string;
  type: string;
  body: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  tries: number;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = "seq, delivery_id, event_id, tenant, endpoint_id, type, body, status, attempts, tries, next_attempt_at, created_at, updated_at";
const iso = (ms: number): string => new Date(ms).toISOString();

function fromRow(row: Row): WebhookDelivery {
  return {
    id: row.delivery_id,
    seq: Number(row.seq),
    eventId: row.event_id,
    tenant: row.tenant,
    endpointId: row.endpoint_id,
    type: row.type,
    body: row.body,
    status: row.status,
    attempts: row.attempts,
    tries: row.tries,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

interface EndpointRow {
  tenant: string;
  endpoint_id: string;
  url: string;
  secret: string;
  events: string[] | null;
  queues: string[] | null;
  answer_links: boolean;
  created_at: string;
  updated_at: string;
}

const ENDPOINT_COLUMNS = "tenant, endpoint_id, url, secret, events, queues, answer_links, created_at, updated_at";

function endpointOf(row: EndpointRow): StoredEndpoint {
  return { tenant: row.tenant, id: row.endpoint_id, url: row.url, secret: row.secret, events: row.events, queues: row.queues, answerLinks: row.answer_links, createdAt: row.created_at, updatedAt: row.updated_at };
}

export class PostgresWebhookOutbox implements WebhookOutbox {
  readonly #db: PostgresDatabase;
  readonly #t: string;

  readonly #e: string;

  constructor(db: PostgresDatabase) {
    this.#db = db;
    this.#t = `${db.q}.hub_webhook_deliveries`;
    this.#e = `${db.q}.hub_webhook_endpoints`;
  }

  async putEndpoint(e: StoredEndpoint, now: number): Promise<StoredEndpoint> {
    const { rows } = await this.#db.pool.query<EndpointRow>(
      `INSERT INTO ${this.#e} (tenant, endpoint_id, url, secret, events, queues, answer_links, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       ON CONFLICT (tenant, endpoint_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, events = excluded.events,
         queues = excluded.queues, answer_links = excluded.answer_links, updated_at = excluded.updated_at
       RETURNING ${ENDPOINT_COLUMNS}`,
      [e.tenant, e.id, e.url, e.secret, e.events === null ? null : JSON.stringify(e.events), e.queues === null ? null : JSON.stringify(e.queues), e.answerLinks, iso(now)],
    );
    return endpointOf(rows[0] as EndpointRow);
  }

  async listEndpoints(tenant?: string): Promise<StoredEndpoint[]> {
    const { rows } = tenant === undefined
      ? await this.#db.pool.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM ${this.#e} ORDER BY tenant, endpoint_id`)
      : await this.#db.pool.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM ${this.#e} WHERE tenant = $1 ORDER BY endpoint_id`, [tenant]);
    return rows.map(endpointOf);
  }

  async deleteEndpoint(tenant: string, id: string): Promise<boolean> {
    const { rowCount } = await this.#db.pool.query(`DELETE FROM ${this.#e} WHERE tenant = $1 AND endpoint_id = $2`, [tenant, id]);
    return rowCount === 1;
  }

  async enqueue(deliveries: readonly NewDelivery[], now: number): Promise<void> {
    if (deliveries.length === 0) return;
    const values: unknown[] = [iso(now)];
    const tuples = deliveries.map((d) => {
      const b = values.push(d.id, d.eventId, d.tenant, d.endpointId, d.type, d.body) - 6;
      return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, 'pending', '[]', 0, $1, $1, $1)`;
    });
    await this.#db.pool.query(
      `INSERT INTO ${this.#t} (delivery_id, event_id, tenant, endpoint_id, type, body, status, attempts, tries, next_attempt_at, created_at, updated_at)
       VALUES ${tuples.join(", ")} ON CONFLICT (delivery_id) DO NOTHING`,
      values,
    );
  }

  async claimDue(now: number, limit: number, leaseMs: number, lease: string): Promise<WebhookDelivery[]> {
    const { rows } = await this.#db.pool.query<Row>(
      `UPDATE ${this.#t} SET lease = $1, next_attempt_at = $2, updated_at = $3
       WHERE delivery_id IN (
         SELECT delivery_id FROM ${this.#t} WHERE status = 'pending' AND next_attempt_at <= $3
         ORDER BY next_attempt_at, seq LIMIT $4 FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      [lease, iso(now + leaseMs), iso(now), limit],
    );
    return rows.map(fromRow).sort((a, b) => a.seq - b.seq);
  }

  async recordAttempt(id: string, lease: string, attempt: DeliveryAttempt, outcome: AttemptOutcome, now: number): Promise<boolean> {
    return this.#db.transaction(async (client) => {
      const { rows } = await client.query<Row>(`SELECT ${COLUMNS} FROM ${this.#t} WHERE delivery_id = $1 AND lease = $2 AND status = 'pending' FOR UPDATE`, [id, lease]);
      const row = rows[0];
      if (row === undefined) return false;
      const attempts = appendAttempt(row.attempts, attempt);
      const { rowCount } = await client.query(
        `UPDATE ${this.#t} SET attempts = $1, tries = $2, status = $3, next_attempt_at = $4, lease = NULL, updated_at = $5 WHERE delivery_id = $6`,
        [JSON.stringify(attempts), row.tries + 1, outcome.status, outcome.nextAttemptAt, iso(now), id],
      );
      return rowCount === 1;
    });
  }

  async list(filter: DeliveryFilter): Promise<WebhookDelivery[]> {
    const { rows } = await this.#db.pool.query<Row>(
      `SELECT ${COLUMNS} FROM ${this.#t} WHERE tenant = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR endpoint_id = $3) AND seq > $4
       ORDER BY seq LIMIT $5`,
      [filter.tenant, filter.status ?? null, filter.endpointId ?? null, filter.after ?? 0, filter.limit],
    );
    return rows.map(fromRow);
  }

  async get(tenant: string, id: string): Promise<WebhookDelivery | undefined> {
    const { rows } = await this.#db.pool.query<Row>(`SELECT ${COLUMNS} FROM ${this.#t} WHERE delivery_id = $1 AND tenant = $2`, [id, tenant]);
    return rows[0] && fromRow(rows[0]);
  }

  async replay(tenant: string, id: string, now: number): Promise<WebhookDelivery | undefined> {
    await this.#db.pool.query(
      `UPDATE ${this.#t} SET status = 'pending', tries = 0, lease = NULL, next_attempt_at = $1, updated_at = $1 WHERE delivery_id = $2 AND tenant = $3 AND status = 'failed'`,
      [iso(now), id, tenant],
    );
    return this.get(tenant, id);
  }

  async nextDue(): Promise<string | null> {
    const { rows } = await this.#db.pool.query<{ at: string | null }>(`SELECT min(next_attempt_at) AS at FROM ${this.#t} WHERE status = 'pending'`);
    return rows[0]?.at ?? null;
  }

  async prune(before: number, limit: number): Promise<number> {
    const { rowCount } = await this.#db.pool.query(
      `DELETE FROM ${this.#t} WHERE delivery_id IN (SELECT delivery_id FROM ${this.#t} WHERE status <> 'pending' AND updated_at < $1 ORDER BY updated_at, seq LIMIT $2)`,
      [new Date(before).toISOString(), limit],
    );
    return rowCount ?? 0;
  }

  async close(): Promise<void> {}
}
