/**
 * Retention of the review rows that only grow, on the hub's real SQLite file:
 * settled webhook deliveries older than `retention.webhookDeliveriesMs` and
 * answer-link uses older than the longest link's life are deleted by the
 * hub's sweep; pending deliveries and recent rows stay.
 */
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { DB_FILE_NAME } from "../../../hub/config.ts";
import { LINK_USE_RETENTION_MS, RowSweeper } from "../../../hub/review/retention.ts";
import { openHubDatabase } from "../../../hub/storage/sqlite/open.ts";
import { SqliteLinkUses, SqliteWebhookOutbox } from "../../../hub/storage/sqlite/index.ts";
import { WAIT, tempDataDir, testHub } from "../../support/hub.ts";

const DAY = 86_400_000;

/** Deliveries settled and pending, and link uses, at the given ages (ms before `now`), written to the file. */
async function seed(file: string, now: number): Promise<void> {
  const db = openHubDatabase(file);
  try {
    const outbox = new SqliteWebhookOutbox(db);
    const uses = new SqliteLinkUses(db);
    const d = (id: string) => ({ id, eventId: `msg_${id}`, tenant: "acme", endpointId: "hook", type: "input.requested", body: "{}" });
    await outbox.enqueue([d("old-delivered"), d("old-failed"), d("old-pending"), d("recent")], now - 40 * DAY);
    await outbox.claimDue(now - 40 * DAY, 10, 60_000, "l");
    const attempt = { at: new Date(now - 40 * DAY).toISOString(), ok: true, responseStatus: 200, error: null, durationMs: 1, node: "n" };
    await outbox.recordAttempt("old-delivered", "l", attempt, { status: "delivered", nextAttemptAt: null }, now - 40 * DAY);
    await outbox.recordAttempt("old-failed", "l", { ...attempt, ok: false }, { status: "failed", nextAttemptAt: null }, now - 35 * DAY);
    await outbox.recordAttempt("old-pending", "l", { ...attempt, ok: false }, { status: "pending", nextAttemptAt: new Date(now).toISOString() }, now - 35 * DAY);
    await outbox.recordAttempt("recent", "l", attempt, { status: "delivered", nextAttemptAt: null }, now - DAY);
    await uses.use({ nonce: "spent-long-ago", tenant: "acme", interruptId: "i", sub: "rita" }, now - LINK_USE_RETENTION_MS - 1);
    await uses.use({ nonce: "link-may-live", tenant: "acme", interruptId: "i", sub: "rita" }, now - 29 * DAY);
  } finally {
    db.close();
  }
}

function rows(file: string): { deliveries: string[]; uses: string[] } {
  const db = openHubDatabase(file);
  try {
    return {
      deliveries: db.prepare<[], { delivery_id: string }>("SELECT delivery_id FROM hub_webhook_deliveries ORDER BY seq").all().map((r) => r.delivery_id),
      uses: db.prepare<[], { nonce: string }>("SELECT nonce FROM hub_answer_link_uses ORDER BY nonce").all().map((r) => r.nonce),
    };
  } finally {
    db.close();
  }
}

describe("review row retention", () => {
  it("the hub's sweep deletes settled deliveries past their retention and link uses past the longest link's life; pending and recent rows stay", async () => {
    const dataDir = tempDataDir();
    const file = join(dataDir, DB_FILE_NAME);
    // The first start creates the schema; the rows are written while no hub holds the file.
    await (await testHub({ dataDir })).close();
    await seed(file, Date.now());
    expect(rows(file).deliveries).toHaveLength(4);
    const hub = await testHub({ dataDir });
    await vi.waitFor(() => expect(rows(file)).toEqual({ deliveries: ["old-pending", "recent"], uses: ["link-may-live"] }), WAIT);
    await hub.close();
    // retention.webhookDeliveriesMs shortens it (the config takes it without a thread TTL).
    await (await testHub({ dataDir, retention: { webhookDeliveriesMs: DAY / 2 } })).close();
    await vi.waitFor(() => expect(rows(file).deliveries).toEqual(["old-pending"]), WAIT);
  });

  it("drains a backlog larger than a batch in one sweep, and a store failure is reported, not thrown", async () => {
    const dataDir = tempDataDir();
    const db = openHubDatabase(join(dataDir, DB_FILE_NAME));
    const uses = new SqliteLinkUses(db);
    const now = Date.now();
    for (let i = 0; i < 2_500; i++) await uses.use({ nonce: `n${i}`, tenant: "acme", interruptId: "i", sub: "s" }, now - LINK_USE_RETENTION_MS - 1 - i);
    const errors: string[] = [];
    const sweeper = new RowSweeper({ outbox: new SqliteWebhookOutbox(db), linkUses: uses, onError: (_e, context) => errors.push(context), clock: () => now });
    expect(await sweeper.sweep()).toEqual({ deliveries: 0, linkUses: 2_500 });
    db.close();
    expect(await sweeper.sweep()).toEqual({ deliveries: 0, linkUses: 0 });
    expect(errors).toEqual(["pruning settled webhook deliveries", "pruning answer-link uses"]);
  });
});
