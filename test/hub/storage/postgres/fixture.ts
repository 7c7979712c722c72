/** A PostgresDatabase in a fresh schema of its own, for one test; dispose drops the schema. */
import { PostgresDatabase } from "../../../../hub/storage/postgres/database.ts";
import { dropSchema, TEST_POOL_CONFIG, uniqueSchemaName } from "../../../support/services.ts";

export async function freshDatabase(url: string): Promise<{ db: PostgresDatabase; dispose(): Promise<void> }> {
  const schema = uniqueSchemaName("hub");
  const db = await PostgresDatabase.open({ connectionString: url, schema, poolConfig: TEST_POOL_CONFIG });
  return {
    db,
    dispose: async () => {
      await db.close();
      await dropSchema(url, schema);
    },
  };
}
