/** PostgresLinkUses against the answer-link use conformance suite, each test in a fresh schema; a second pool is a second node. */
import { PostgresDatabase } from "../../../../hub/storage/postgres/database.ts";
import { PostgresLinkUses } from "../../../../hub/storage/postgres/link-uses.ts";
import { TEST_POOL_CONFIG, describeWith } from "../../../support/services.ts";
import { describeLinkUsesConformance } from "../conformance/link-uses.ts";
import { freshDatabase } from "./fixture.ts";

describeWith("DATABASE_URL", "PostgresLinkUses", (url) => {
  describeLinkUsesConformance("PostgresLinkUses", async () => {
    const { db, dispose } = await freshDatabase(url);
    const pools: PostgresDatabase[] = [];
    return {
      uses: new PostgresLinkUses(db),
      other: async () => {
        const other = await PostgresDatabase.open({ connectionString: url, schema: db.schema, poolConfig: TEST_POOL_CONFIG });
        pools.push(other);
        return new PostgresLinkUses(other);
      },
      dispose: async () => {
        for (const p of pools) await p.close();
        await dispose();
      },
    };
  });
});
