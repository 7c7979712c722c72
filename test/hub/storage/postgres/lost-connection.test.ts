/**
 * A connection to Postgres lost while a transaction holds it (the machine's
 * Postgres behind a proxy the test cuts): the transaction fails, the process
 * does not get an uncaught 'error' from the checked-out client (vitest fails
 * a run on one), and the pool works again once Postgres is reachable.
 */
import { expect, it } from "vitest";
import { PostgresDatabase } from "../../../../hub/storage/postgres/database.ts";
import { onCleanup } from "../../../support/cleanup.ts";
import { describeWith, dropSchema, TEST_POOL_CONFIG, uniqueSchemaName } from "../../../support/services.ts";
import { TcpProxy } from "../../../support/tcp-proxy.ts";

describeWith("DATABASE_URL", "PostgresDatabase when the connection is lost mid-transaction", (url) => {
  it("fails the transaction without an uncaught error, and works again when Postgres is back", async () => {
    const target = new URL(url);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    onCleanup(() => proxy.cut());
    const schema = uniqueSchemaName("lost");
    const db = await PostgresDatabase.open({ connectionString: proxy.rewrite(url), schema, poolConfig: TEST_POOL_CONFIG });
    onCleanup(async () => {
      await db.close();
      await dropSchema(url, schema);
    });
    let cut: () => void = () => {};
    const held = new Promise<void>((resolve) => (cut = resolve));
    const tx = db.transaction(async (client) => {
      await client.query("SELECT 1");
      await held; // checked out, between two queries, when the connection goes
      await client.query("SELECT 2");
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 100));
    cut();
    await expect(tx).rejects.toThrow();
    await proxy.restore();
    expect(await db.transaction(async (client) => (await client.query<{ n: number }>("SELECT 3 AS n")).rows[0]?.n)).toBe(3);
  });
});
