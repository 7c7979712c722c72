/** PostgresWebhookOutbox against the webhook outbox conformance suite, each test in an empty schema of its own (fixture.ts); a second pool is a second node. */
import { PostgresDatabase } from "../../../../hub/storage/postgres/database.ts";
import { PostgresWebhookOutbox } from "../../../../hub/storage/postgres/webhook-outbox.ts";
import { TEST_POOL_CONFIG, describeWith } from "../../../support/services.ts";
import { describeWebhookOutboxConformance } from "../conformance/webhook-outbox.ts";
import { freshDatabase } from "./fixture.ts";

describeWith("DATABASE_URL", "PostgresWebhookOutbox", (url) => {
  describeWebhookOutboxConformance("PostgresWebhookOutbox", async () => {
    const { db, dispose } = await freshDatabase(url);
    const pools: PostgresDatabase[] = [];
    return {
      outbox: new PostgresWebhookOutbox(db),
      other: async () => {
        const other = await PostgresDatabase.open({ connectionString: url, schema: db.schema, poolConfig: TEST_POOL_CONFIG });
        pools.push(other);
        return new PostgresWebhookOutbox(other);
      },
      dispose: async () => {
        for (const p of pools) await p.close();
        await dispose();
      },
    };
  });
});
