/**
 * SqliteWebhookOutbox: webhook deliveries in the hub's SQLite file (table
 * hub_webhook_deliveries, migration 7), so a pending delivery is sent after a
 * restart; and the endpoints admins manage over REST (hub_webhook_endpoints, migration 9). A claim is one IMMEDIATE transaction (select due, set the lease),
 * so two processes on one file never take the same delivery; an attempt is
 * recorded only while its lease is still the delivery's.
 */
import type Database from "better-sqlite3";
import { requireTables } from "../../../engine/checkpoint/sqlite-open.ts";
import { decodeJson, encodeJson } from "../../runs/records.ts";
import { appendAttempt, type StoredEndpoint, type AttemptOutcome, type DeliveryAttempt, type DeliveryFilter, type DeliveryStatus, type NewDelivery, type WebhookDelivery, type WebhookOutbox } from "../../review/webhooks/outbox.ts";
import { WEBHOOK_TABLES } from "./migrations.ts";
import { openHubDatabase } from "./open.ts";

interface Row {
  seq: number;
  delivery_id: string;
  event_id: string;
  tenant: string;
  endpoint_id: string;
  type: string;
  body: string;
  status: DeliveryStatus;
  attempts: string;
  tries: number;
  next_attempt_at: string | null;
  lease: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = "seq, delivery_id, event_id, tenant, endpoint_id, type, body, status, attempts, tries, next_attempt_at, lease, created_at, updated_at";
const iso = (ms: number): string => new Date(ms).toISOString();

function fromRow(row: Row): WebhookDelivery {
  return {
    id: row.delivery_id,
    seq: row.seq,
    eventId: row.event_id,
    tenant: row.tenant,
    endpointId: row.endpoint_id,
    type: row.type,
    body: row.body,
    status: row.status,
    attempts: decodeJson(row.attempts) as DeliveryAttempt[],
    tries: row.tries,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function prepare(db: Database.Database) {
  const select = `SELECT ${COLUMNS} FROM hub_webhook_deliveries`;
  return {
    insert: db.prepare<{ id: string; eventId: string; tenant: string; endpointId: string; type: string; body: string; at: string }>(
      `INSERT INTO hub_webhook_deliveries (delivery_id, event_id, tenant, endpoint_id, type, body, status, attempts, tries, next_attempt_at, created_at, updated_at)
       VALUES (@id, @eventId, @tenant, @endpointId, @type, @body, 'pending', '[]', 0, @at, @at, @at) ON CONFLICT (delivery_id) DO NOTHING`,
    ),
    due: db.prepare<[string, number], Row>(`${select} WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, seq LIMIT ?`),
    lease: db.prepare<[string, string, string, string]>("UPDATE hub_webhook_deliveries SET lease = ?, next_attempt_at = ?, updated_at = ? WHERE delivery_id = ?"),
    byId: db.prepare<[string], Row>(`${select} WHERE delivery_id = ?`),
    leased: db.prepare<[string, string], Row>(`${select} WHERE delivery_id = ? AND lease = ? AND status = 'pending'`),
    record: db.prepare<{ id: string; lease: string; attempts: string; tries: number; status: string; next: string | null; at: string }>(
      `UPDATE hub_webhook_deliveries SET attempts = @attempts, tries = @tries, status = @status, next_attempt_at = @next, lease = NULL, updated_at = @at
       WHERE delivery_id = @id AND lease = @lease AND status = 'pending'`,
    ),
    list: db.prepare<{ tenant: string; status: string | null; endpoint: string | null; after: number; limit: number }, Row>(
      `${select} WHERE tenant = @tenant AND (@status IS NULL OR status = @status) AND (@endpoint IS NULL OR endpoint_id = @endpoint) AND seq > @after
       ORDER BY seq LIMIT @limit`,
    ),
    replay: db.prepare<[string, string, string, string]>(
      "UPDATE hub_webhook_deliveries SET status = 'pending', tries = 0, lease = NULL, next_attempt_at = ?, updated_at = ? WHERE delivery_id = ? AND tenant = ? AND status = 'failed'",
    ),
    nextDue: db.prepare<[], { at: string | null }>("SELECT MIN(next_attempt_at) AS at FROM hub_webhook_deliveries WHERE status = 'pending'"),
    prune: db.prepare<[string, number]>(
      "DELETE FROM hub_webhook_deliveries WHERE seq IN (SELECT seq FROM hub_webhook_deliveries WHERE status <> 'pending' AND updated_at < ? ORDER BY updated_at, seq LIMIT ?)",
    ),
    putEndpoint: db.prepare<EndpointRow>(
      `INSERT INTO hub_webhook_endpoints (tenant, endpoint_id, url, secret, events, queues, answer_links, created_at, updated_at)
       VALUES (@tenant, @endpoint_id, @url, @secret, @events, @queues, @answer_links, @created_at, @updated_at)
       ON CONFLICT (tenant, endpoint_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, events = excluded.events,
         queues = excluded.queues, answer_links = excluded.answer_links, updated_at = excluded.updated_at`,
    ),
    endpoint: db.prepare<[string, string], EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM hub_webhook_endpoints WHERE tenant = ? AND endpoint_id = ?`),
    endpointsOf: db.prepare<[string], EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM hub_webhook_endpoints WHERE tenant = ? ORDER BY endpoint_id`),
    allEndpoints: db.prepare<[], EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM hub_webhook_endpoints ORDER BY tenant, endpoint_id`),
    deleteEndpoint: db.prepare<[string, string]>("DELETE FROM hub_webhook_endpoints WHERE tenant = ? AND endpoint_id = ?"),
  };
}

interface EndpointRow {
  tenant: string;
  endpoint_id: string;
  url: string;
  secret: string;
  events: string | null;
  queues: string | null;
  answer_links: number;
  created_at: string;
  updated_at: string;
}

const ENDPOINT_COLUMNS = "tenant, endpoint_id, url, secret, events, queues, answer_links, created_at, updated_at";

function endpointOf(row: EndpointRow): StoredEndpoint {
  return {
    tenant: row.tenant,
    id: row.endpoint_id,
    url: row.url,
    secret: row.secret,
    events: row.events === null ? null : (decodeJson(row.events) as string[]),
    queues: row.queues === null ? null : (decodeJson(row.queues) as string[]),
    answerLinks: row.answer_links === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class SqliteWebhookOutbox implements WebhookOutbox {
  readonly db: Database.Database;
  readonly #ownsDb: boolean;
  readonly #sql: ReturnType<typeof prepare>;
  readonly #tx: Database.Transaction<(fn: () => unknown) => unknown>;

  /** Opens the hub's file at a path, or adopts an open Database (close() then leaves it open). */
  constructor(pathOrDb: string | Database.Database) {
    this.#ownsDb = typeof pathOrDb === "string";
    this.db = typeof pathOrDb === "string" ? openHubDatabase(pathOrDb) : pathOrDb;
    if (!this.#ownsDb) requireTables(this.db, "SqliteWebhookOutbox", WEBHOOK_TABLES);
    this.#sql = prepare(this.db);
    this.#tx = this.db.transaction((fn: () => unknown) => fn());
  }

  #atomic<T>(fn: () => T): T {
    return this.#tx.immediate(fn) as T;
  }

  async enqueue(deliveries: readonly NewDelivery[], now: number): Promise<void> {
    const at = iso(now);
    this.#atomic(() => {
      for (const d of deliveries) this.#sql.insert.run({ id: d.id, eventId: d.eventId, tenant: d.tenant, endpointId: d.endpointId, type: d.type, body: d.body, at });
    });
  }

  async claimDue(now: number, limit: number, leaseMs: number, lease: string): Promise<WebhookDelivery[]> {
    return this.#atomic(() => {
      const rows = this.#sql.due.all(iso(now), limit);
      const until = iso(now + leaseMs);
      for (const row of rows) this.#sql.lease.run(lease, until, iso(now), row.delivery_id);
      return rows.map((row) => ({ ...fromRow(row), nextAttemptAt: until }));
    });
  }

  async recordAttempt(id: string, lease: string, attempt: DeliveryAttempt, outcome: AttemptOutcome, now: number): Promise<boolean> {
    return this.#atomic(() => {
      const row = this.#sql.leased.get(id, lease);
      if (row === undefined) return false;
      const attempts = appendAttempt(decodeJson(row.attempts) as DeliveryAttempt[], attempt);
      const params = { id, lease, attempts: encodeJson(attempts), tries: row.tries + 1, status: outcome.status, next: outcome.nextAttemptAt, at: iso(now) };
      return this.#sql.record.run(params).changes === 1;
    });
  }

  async list(filter: DeliveryFilter): Promise<WebhookDelivery[]> {
    return this.#sql.list.all({ tenant: filter.tenant, status: filter.status ?? null, endpoint: filter.endpointId ?? null, after: filter.after ?? 0, limit: filter.limit }).map(fromRow);
  }

  async get(tenant: string, id: string): Promise<WebhookDelivery | undefined> {
    const row = this.#sql.byId.get(id);
    return row && row.tenant === tenant ? fromRow(row) : undefined;
  }

  async replay(tenant: string, id: string, now: number): Promise<WebhookDelivery | undefined> {
    return this.#atomic(() => {
      this.#sql.replay.run(iso(now), iso(now), id, tenant);
      const row = this.#sql.byId.get(id);
      return row && row.tenant === tenant ? fromRow(row) : undefined;
    });
  }

  async nextDue(): Promise<string | null> {
    return this.#sql.nextDue.get()?.at ?? null;
  }

  async prune(before: number, limit: number): Promise<number> {
    return this.#sql.prune.run(iso(before), limit).changes;
  }

  async putEndpoint(e: StoredEndpoint, now: number): Promise<StoredEndpoint> {
    return this.#atomic(() => {
      const at = iso(now);
      const row: EndpointRow = {
        tenant: e.tenant,
        endpoint_id: e.id,
        url: e.url,
        secret: e.secret,
        events: e.events === null ? null : encodeJson(e.events),
        queues: e.queues === null ? null : encodeJson(e.queues),
        answer_links: e.answerLinks ? 1 : 0,
        created_at: at,
        updated_at: at,
      };
      this.#sql.putEndpoint.run(row);
      const stored = this.#sql.endpoint.get(e.tenant, e.id);
      if (stored === undefined) throw new Error(`webhook endpoint ${e.id} was not stored`);
      return endpointOf(stored);
    });
  }

  async listEndpoints(tenant?: string): Promise<StoredEndpoint[]> {
    return (tenant === undefined ? this.#sql.allEndpoints.all() : this.#sql.endpointsOf.all(tenant)).map(endpointOf);
  }

  async deleteEndpoint(tenant: string, id: string): Promise<boolean> {
    return this.#sql.deleteEndpoint.run(tenant, id).changes === 1;
  }

  async close(): Promise<void> {
    if (this.#ownsDb && this.db.open) this.db.close();
  }
}
