/** SqliteWebhookOutbox against the webhook outbox conformance suite, on a real file (two connections for the claim race). */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteWebhookOutbox } from "../../../../hub/storage/sqlite/index.ts";
import type { WebhookOutbox } from "../../../../hub/review/webhooks/outbox.ts";
import { describeWebhookOutboxConformance } from "../conformance/webhook-outbox.ts";

describeWebhookOutboxConformance("SqliteWebhookOutbox", async () => {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-webhooks-"));
  const file = join(dir, "hub.db");
  const outbox = new SqliteWebhookOutbox(file);
  const others: WebhookOutbox[] = [];
  return {
    outbox,
    other: async () => {
      const other = new SqliteWebhookOutbox(file);
      others.push(other);
      return other;
    },
    dispose: async () => {
      for (const o of others) await o.close();
      await outbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
