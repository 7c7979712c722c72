/**
 * The hub file's schema (`switchboard.sqlite` in the data dir): its numbered
 * migrations, applied by openSqlite (engine/checkpoint/sqlite-open.ts, which
 * describes the scheme) and tracked by the file's `user_version`. One list for
 * the whole file — the engine's checkpoint tables, the hub store's threads and
 * runs, the review store's items and audit — because one file has one
 * `user_version`.
 *
 * Adding a migration: append `{ version: N + 1, name, sql }` here and never
 * edit a released one. A new checkpoint migration in the engine
 * (CHECKPOINT_MIGRATIONS) must be taken up by a hub migration too; a test
 * (test/hub/storage/sqlite/migrations.test.ts) fails until it is. The Postgres
 * adapters keep the same kind of list, with a table in place of user_version.
 */
import type { SqliteMigration, SqliteSchema } from "../../../engine/checkpoint/sqlite-open.ts";
import { CHECKPOINT_MIGRATIONS } from "../../../engine/checkpoint/sqlite.ts";

/** Threads and runs (SqliteHubStore). */
const HUB_RECORDS_V1 = `
CREATE TABLE IF NOT EXISTS hub_threads (
  seq INTEGER PRIMARY KEY,
  thread_id TEXT NOT NULL UNIQUE,
  tenant TEXT NOT NULL,
  assistant_id TEXT,
  status TEXT NOT NULL,
  metadata TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS hub_threads_tenant_status ON hub_threads (tenant, status, created_at);
CREATE INDEX IF NOT EXISTS hub_threads_tenant_created ON hub_threads (tenant, created_at);
CREATE TABLE IF NOT EXISTS hub_runs (
  seq INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE,
  thread_id TEXT NOT NULL,
  tenant TEXT NOT NULL,
  assistant_id TEXT NOT NULL,
  status TEXT NOT NULL,
  started_by TEXT NOT NULL,
  multitask_strategy TEXT NOT NULL,
  input TEXT NOT NULL,
  error TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  ended_at TEXT
);
CREATE INDEX IF NOT EXISTS hub_runs_thread_created ON hub_runs (thread_id, created_at);
CREATE INDEX IF NOT EXISTS hub_runs_status_created ON hub_runs (status, created_at);
`;

/** Review items and their audit trail (SqliteReviewStore). */
const REVIEW_ITEMS_V1 = `
CREATE TABLE IF NOT EXISTS hub_review_items (
  seq INTEGER PRIMARY KEY,
  interrupt_id TEXT NOT NULL UNIQUE,
  thread_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  tenant TEXT NOT NULL,
  queue TEXT NOT NULL,
  status TEXT NOT NULL,
  namespace TEXT NOT NULL,
  node TEXT,
  payload TEXT NOT NULL,
  routing TEXT NOT NULL,
  started_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  claim_sub TEXT,
  claim_name TEXT,
  claim_until TEXT,
  answer_value TEXT,
  answered_sub TEXT,
  answered_name TEXT,
  answered_at TEXT,
  resumed_at TEXT,
  version INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS hub_review_items_queue ON hub_review_items (tenant, queue, status);
CREATE INDEX IF NOT EXISTS hub_review_items_thread ON hub_review_items (thread_id);
CREATE INDEX IF NOT EXISTS hub_review_items_run ON hub_review_items (run_id);
CREATE INDEX IF NOT EXISTS hub_review_items_due ON hub_review_items (status, expires_at);
CREATE INDEX IF NOT EXISTS hub_review_items_claims ON hub_review_items (status, claim_until);
CREATE TABLE IF NOT EXISTS hub_review_audit (
  seq INTEGER PRIMARY KEY,
  interrupt_id TEXT NOT NULL,
  at TEXT NOT NULL,
  kind TEXT NOT NULL,
  by_sub TEXT,
  by_name TEXT,
  reason TEXT,
  detail TEXT
);
CREATE INDEX IF NOT EXISTS hub_review_audit_item ON hub_review_audit (interrupt_id, seq);
`;

const [checkpointsV1] = CHECKPOINT_MIGRATIONS;

export const HUB_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    // IF NOT EXISTS throughout: files made before versioning are adopted as they are.
    name: "baseline: checkpoints and writes, threads and runs, review items and audit",
    sql: [checkpointsV1.sql, HUB_RECORDS_V1, REVIEW_ITEMS_V1].join("\n"),
  },
  {
    version: 2,
    name: "the durable answer pipeline: an answer's edits, the one resume run that consumes it, when it applied it",
    sql: `
ALTER TABLE hub_review_items ADD COLUMN answer_edits TEXT;
ALTER TABLE hub_review_items ADD COLUMN resume_run_id TEXT;
ALTER TABLE hub_review_items ADD COLUMN applied_at TEXT;
CREATE INDEX IF NOT EXISTS hub_review_items_resume ON hub_review_items (resume_run_id);`,
  },
  {
    version: 3,
    name: "the node that runs (or last ran) each run",
    sql: "ALTER TABLE hub_runs ADD COLUMN node_id TEXT;",
  },
  {
    version: 4,
    name: "the LangGraph API's store: JSON items by tenant, namespace and key",
    sql: `
CREATE TABLE IF NOT EXISTS hub_store_items (
  tenant TEXT NOT NULL,
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (tenant, namespace, key)
);
CREATE INDEX IF NOT EXISTS hub_store_items_updated ON hub_store_items (tenant, updated_at);`,
  },
  {
    version: 5,
    name: "review workflows: an item's votes, stage, revision and payload digest (one JSON column)",
    sql: "ALTER TABLE hub_review_items ADD COLUMN workflow_json TEXT;",
  },
  {
    version: 6,
    name: "per-action review items: which action of which interrupt an item is (one JSON column)",
    sql: "ALTER TABLE hub_review_items ADD COLUMN action_json TEXT;",
  },
  {
    version: 7,
    name: "telling people outside the hub: the webhook outbox, answer links' single use, where each audited action came from",
    sql: `
CREATE TABLE IF NOT EXISTS hub_webhook_deliveries (
  seq INTEGER PRIMARY KEY,
  delivery_id TEXT NOT NULL UNIQUE,
  event_id TEXT NOT NULL,
  tenant TEXT NOT NULL,
  endpoint_id TEXT NOT NULL,
  type TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts TEXT NOT NULL,
  tries INTEGER NOT NULL,
  next_attempt_at TEXT,
  lease TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS hub_webhook_deliveries_due ON hub_webhook_deliveries (status, next_attempt_at);
CREATE INDEX IF NOT EXISTS hub_webhook_deliveries_tenant ON hub_webhook_deliveries (tenant, seq);
CREATE TABLE IF NOT EXISTS hub_answer_link_uses (
  nonce TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  interrupt_id TEXT NOT NULL,
  sub TEXT NOT NULL,
  used_at TEXT NOT NULL
);
ALTER TABLE hub_review_audit ADD COLUMN source TEXT;
CREATE INDEX IF NOT EXISTS hub_review_audit_at ON hub_review_audit (at);`,
  },
  {
    version: 8,
    name: "review timers: escalation and reminder counters (one JSON column) and when the item's next timer is due",
    // Items stored before have no timer but their deadline.
    sql: `
ALTER TABLE hub_review_items ADD COLUMN timers_json TEXT;
ALTER TABLE hub_review_items ADD COLUMN next_timer_at TEXT;
UPDATE hub_review_items SET next_timer_at = expires_at;
CREATE INDEX IF NOT EXISTS hub_review_items_timers ON hub_review_items (status, next_timer_at);`,
  },
  {
    version: 9,
    name: "webhook endpoints admins manage over REST, per tenant",
    sql: `
CREATE TABLE IF NOT EXISTS hub_webhook_endpoints (
  tenant TEXT NOT NULL,
  endpoint_id TEXT NOT NULL,
  url TEXT NOT NULL,
  secret TEXT NOT NULL,
  events TEXT,
  queues TEXT,
  answer_links INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (tenant, endpoint_id)
);`,
  },
  {
    version: 10,
    name: "retention: settled webhook deliveries and answer-link uses are pruned by age",
    sql: `
CREATE INDEX IF NOT EXISTS hub_webhook_deliveries_settled ON hub_webhook_deliveries (updated_at) WHERE status <> 'pending';
CREATE INDEX IF NOT EXISTS hub_answer_link_uses_used_at ON hub_answer_link_uses (used_at);`,
  },
];

export const HUB_SCHEMA: SqliteSchema = {
  name: "hub",
  applicationId: 0x5357_4842, // "SWHB"
  migrations: HUB_MIGRATIONS,
};

/** What each adapter needs in a connection it adopts. */
export const HUB_RECORD_TABLES = ["hub_threads", "hub_runs"] as const;
export const REVIEW_TABLES = ["hub_review_items", "hub_review_audit"] as const;
export const STORE_TABLES = ["hub_store_items"] as const;
export const WEBHOOK_TABLES = ["hub_webhook_deliveries", "hub_webhook_endpoints"] as const;
export const LINK_TABLES = ["hub_answer_link_uses"] as const;
