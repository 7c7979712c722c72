/** PostgresRunLeases against the run lease conformance suite: three nodes' pools on one fresh schema. */
import { PostgresDatabase } from "../../../../hub/storage/postgres/database.ts";
import { PostgresRunLeases } from "../../../../hub/storage/postgres/run-leases.ts";
import { describeWith, TEST_POOL_CONFIG } from "../../../support/services.ts";
import { describeLeasesConformance } from "../conformance/leases.ts";
import { freshDatabase } from "./fixture.ts";

describeWith("DATABASE_URL", "PostgresRunLeases", (url) => {
  describeLeasesConformance("PostgresRunLeases", async () => {
    const { db, dispose } = await freshDatabase(url);
    const others = await Promise.all([1, 2].map(() => PostgresDatabase.open({ connectionString: url, schema: db.schema, poolConfig: TEST_POOL_CONFIG })));
    const [b, c] = others.map((o) => new PostgresRunLeases(o));
    return {
      nodes: [new PostgresRunLeases(db), b!, c!],
      dispose: async () => {
        await Promise.all(others.map((o) => o.close()));
        await dispose();
      },
    };
  });
});
