/** PostgresItemStore against the item store conformance suite, each test in an empty schema of its own (fixture.ts); two nodes see one store. */
import { expect, it } from "vitest";
import { PostgresDatabase } from "../../../../hub/storage/postgres/database.ts";
import { PostgresItemStore } from "../../../../hub/storage/postgres/item-store.ts";
import { TEST_POOL_CONFIG, describeWith } from "../../../support/services.ts";
import { describeItemStoreConformance } from "../conformance/item-store.ts";
import { freshDatabase } from "./fixture.ts";

describeWith("DATABASE_URL", "PostgresItemStore", (url) => {
  describeItemStoreConformance("PostgresItemStore", async () => {
    const { db, dispose } = await freshDatabase(url);
    return { store: await PostgresItemStore.open(db), dispose };
  });

  it("two nodes' pools share the items", async () => {
    const { db, dispose } = await freshDatabase(url);
    const other = await PostgresDatabase.open({ connectionString: url, schema: db.schema, poolConfig: TEST_POOL_CONFIG });
    try {
      const [a, b] = [await PostgresItemStore.open(db), await PostgresItemStore.open(other)];
      await a.put("acme", ["shared"], "k", { from: "a" });
      expect((await b.get("acme", ["shared"], "k"))?.value).toEqual({ from: "a" });
      await b.delete("acme", ["shared"], "k");
      expect(await a.get("acme", ["shared"], "k")).toBeUndefined();
    } finally {
      await other.close();
      await dispose();
    }
  });
});
