/**
 * The hub's tables in Postgres, as numbered migrations of the "hub" component
 * (applied by PostgresDatabase.open; never edit a released one, add the next).
 * JSON columns are `json` (kept as written: "\u0000" survives, which jsonb
 * refuses); timestamps are the stores' own ISO strings, COLLATE "C" so they
 * sort as text, as in the SQLite backend.
 */
import type { Migration } from "../../../engine/postgres.ts";

export const HUB_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE {schema}.hub_threads (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  thread_id text PRIMARY KEY,
  tenant text NOT NULL,
  assistant_id text,
  status text NOT NULL,
  metadata json NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
);
CREATE INDEX hub_threads_tenant_created ON {schema}.hub_threads (tenant, created_at DESC, seq DESC);
CREATE INDEX hub_threads_tenant_status ON {schema}.hub_threads (tenant, status, created_at DESC, seq DESC);
CREATE TABLE {schema}.hub_runs (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  run_id text PRIMARY KEY,
  thread_id text NOT NULL,
  tenant text NOT NULL,
  assistant_id text NOT NULL,
  status text NOT NULL,
  started_by text NOT NULL,
  multitask_strategy text NOT NULL,
  input json NOT NULL,
  error text,
  created_at text COLLATE "C" NOT NULL,
  started_at text,
  ended_at text
);
CREATE INDEX hub_runs_thread_created ON {schema}.hub_runs (thread_id, created_at DESC, seq DESC);
CREATE INDEX hub_runs_status ON {schema}.hub_runs (status);
CREATE TABLE {schema}.hub_review_items (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  interrupt_id text PRIMARY KEY,
  thread_id text NOT NULL,
  run_id text NOT NULL,
  tenant text NOT NULL,
  queue text NOT NULL,
  status text NOT NULL,
  namespace json NOT NULL,
  node text,
  payload json NOT NULL,
  routing json NOT NULL,
  started_by text NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C",
  claim_sub text,
  claim_name text,
  claim_until text COLLATE "C",
  answer_value json,
  answered_sub text,
  answered_name text,
  answered_at text,
  resumed_at text,
  version integer NOT NULL DEFAULT 0
);
CREATE INDEX hub_review_items_queue ON {schema}.hub_review_items (tenant, queue, status);
CREATE INDEX hub_review_items_thread ON {schema}.hub_review_items (thread_id);
CREATE INDEX hub_review_items_run ON {schema}.hub_review_items (run_id);
CREATE INDEX hub_review_items_due ON {schema}.hub_review_items (status, expires_at);
CREATE INDEX hub_review_items_claims ON {schema}.hub_review_items (status, claim_until);
CREATE TABLE {schema}.hub_review_audit (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  interrupt_id text NOT NULL,
  at text NOT NULL,
  kind text NOT NULL,
  by_sub text,
  by_name text,
  reason text,
  detail json
);
CREATE INDEX hub_review_audit_item ON {schema}.hub_review_audit (interrupt_id, seq);`,
  },
  {
    // The durable answer pipeline: an answer's edits, and the one resume run that consumes it.
    version: 2,
    sql: `
ALTER TABLE {schema}.hub_review_items ADD COLUMN answer_edits json;
ALTER TABLE {schema}.hub_review_items ADD COLUMN resume_run_id text;
ALTER TABLE {schema}.hub_review_items ADD COLUMN applied_at text;
CREATE INDEX hub_review_items_resume ON {schema}.hub_review_items (resume_run_id) WHERE resume_run_id IS NOT NULL;`,
  },
  {
    // Run leases (one per thread with an active run) and who ran each run.
    version: 3,
    sql: `
CREATE SEQUENCE {schema}.hub_lease_tokens;
CREATE TABLE {schema}.hub_run_leases (
  thread_id text PRIMARY KEY,
  run_id text NOT NULL,
  node_id text NOT NULL,
  token bigint NOT NULL,
  expires_at timestamptz NOT NULL,
  previous_node_id text
);
CREATE INDEX hub_run_leases_expiry ON {schema}.hub_run_leases (expires_at);
ALTER TABLE {schema}.hub_runs ADD COLUMN node_id text;`,
  },
  {
    // The LangGraph API's store: JSON items by tenant, namespace (labels joined by ".") and key.
    version: 4,
    sql: `
CREATE TABLE {schema}.hub_store_items (
  tenant text NOT NULL,
  namespace text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value json NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (tenant, namespace, key)
);
CREATE INDEX hub_store_items_updated ON {schema}.hub_store_items (tenant, updated_at DESC);`,
  },
  {
    // Review workflows: an item's votes, stage, revision and payload digest, in one JSON column.
    version: 5,
    sql: "ALTER TABLE {schema}.hub_review_items ADD COLUMN workflow_json json;",
  },
  {
    // Per-action review items: which action of which interrupt an item is.
    version: 6,
    sql: "ALTER TABLE {schema}.hub_review_items ADD COLUMN action_json json;",
  },
  {
    // Telling people outside the hub: the webhook outbox, answer links' single use, where each audited action came from.
    version: 7,
    sql: `
CREATE TABLE {schema}.hub_webhook_deliveries (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  delivery_id text PRIMARY KEY,
  event_id text NOT NULL,
  tenant text NOT NULL,
  endpoint_id text NOT NULL,
  type text NOT NULL,
  body text NOT NULL,
  status text NOT NULL,
  attempts json NOT NULL,
  tries integer NOT NULL,
  next_attempt_at text COLLATE "C",
  lease text,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
);
CREATE INDEX hub_webhook_deliveries_due ON {schema}.hub_webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX hub_webhook_deliveries_tenant ON {schema}.hub_webhook_deliveries (tenant, seq);
CREATE TABLE {schema}.hub_answer_link_uses (
  nonce text PRIMARY KEY,
  tenant text NOT NULL,
  interrupt_id text NOT NULL,
  sub text NOT NULL,
  used_at text NOT NULL
);
ALTER TABLE {schema}.hub_review_audit ADD COLUMN source json;
CREATE INDEX hub_review_audit_at ON {schema}.hub_review_audit (at);`,
  },
  {
    // Review timers: escalation and reminder counters in one JSON column, and when the next timer is due
    // (items stored before have no timer but their deadline).
    version: 8,
    sql: `
ALTER TABLE {schema}.hub_review_items ADD COLUMN timers_json json;
ALTER TABLE {schema}.hub_review_items ADD COLUMN next_timer_at text COLLATE "C";
UPDATE {schema}.hub_review_items SET next_timer_at = expires_at;
CREATE INDEX hub_review_items_timers ON {schema}.hub_review_items (status, next_timer_at);`,
  },
  {
    // Webhook endpoints admins manage over REST, per tenant.
    version: 9,
    sql: `
CREATE TABLE {schema}.hub_webhook_endpoints (
  tenant text NOT NULL,
  endpoint_id text NOT NULL,
  url text NOT NULL,
  secret text NOT NULL,
  events json,
  queues json,
  answer_links boolean NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (tenant, endpoint_id)
);`,
  },
  {
    // Retention: settled webhook deliveries and answer-link uses are pruned by age (ISO times compare bytewise).
    version: 10,
    sql: `
ALTER TABLE {schema}.hub_answer_link_uses ALTER COLUMN used_at TYPE text COLLATE "C";
CREATE INDEX hub_webhook_deliveries_settled ON {schema}.hub_webhook_deliveries (updated_at) WHERE status <> 'pending';
CREATE INDEX hub_answer_link_uses_used_at ON {schema}.hub_answer_link_uses (used_at);`,
  },
];
