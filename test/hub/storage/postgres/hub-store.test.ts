/** PostgresHubStore against the hub store conformance suite, each test in an empty schema of its own (fixture.ts). */
import { PostgresHubStore } from "../../../../hub/storage/postgres/hub-store.ts";
import { describeWith } from "../../../support/services.ts";
import { describeHubStoreConformance } from "../conformance/hub-store.ts";
import { freshDatabase } from "./fixture.ts";

describeWith("DATABASE_URL", "PostgresHubStore", (url) => {
  describeHubStoreConformance("PostgresHubStore", async () => {
    const { db, dispose } = await freshDatabase(url);
    return { store: await PostgresHubStore.open(db), dispose };
  });
});
