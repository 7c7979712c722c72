/** PostgresSaver against the conformance suite, on the machine's Postgres, one fresh schema per test. */
import { expect, it } from "vitest";
import pg from "pg";
import { newCheckpointId } from "../../../engine/checkpoint/ids.ts";
import { PostgresSaver } from "../../../engine/checkpoint/postgres.ts";
import { describeWith, dropSchema, TEST_POOL_CONFIG, uniqueSchemaName } from "../../support/services.ts";
import { describeCheckpointerConformance } from "./conformance.ts";

describeWith("DATABASE_URL", "PostgresSaver", (url) => {
  describeCheckpointerConformance("PostgresSaver", async () => {
    const schema = uniqueSchemaName("cp");
    const saver = await PostgresSaver.open({ connectionString: url, poolConfig: TEST_POOL_CONFIG, schema });
    return {
      saver,
      dispose: async () => {
        await saver.close();
        await dropSchema(url, schema);
      },
    };
  }, { bulkTimeoutMs: 120_000 });

  it("creates its schema once when several savers open an empty database at once", async () => {
    const schema = uniqueSchemaName("cp");
    try {
      const savers = await Promise.all(
        Array.from({ length: 6 }, () => PostgresSaver.open({ connectionString: url, schema })),
      );
      const config = await savers[0]!.put(
        { threadId: "t", checkpointNs: "" },
        { v: 1, id: newCheckpointId(), ts: new Date().toISOString(), channelValues: {}, channelVersions: {}, versionsSeen: {} },
        { source: "input", step: -1, parents: {} },
      );
      expect((await savers[5]!.getTuple(config))?.config).toEqual(config);
      await Promise.all(savers.map((s) => s.close()));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const applied = await client.query(`SELECT component, version FROM "${schema}".schema_migrations`);
      await client.end();
      expect(applied.rows).toEqual([{ component: "checkpoints", version: 1 }]);
    } finally {
      await dropSchema(url, schema);
    }
  });

  it("refuses a schema migrated by a newer build, and leaves a shared pool open on close", async () => {
    const schema = uniqueSchemaName("cp");
    const pool = new pg.Pool({ connectionString: url });
    try {
      const saver = await PostgresSaver.open({ pool, schema });
      await saver.close();
      await pool.query(`INSERT INTO "${schema}".schema_migrations (component, version) VALUES ('checkpoints', 99)`);
      await expect(PostgresSaver.open({ pool, schema })).rejects.toMatchObject({ code: "SCHEMA_TOO_NEW" });
      expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
      await dropSchema(url, schema);
    }
  });

  it("refuses a schema name that is not a plain identifier", async () => {
    await expect(PostgresSaver.open({ connectionString: url, schema: 'x"; DROP TABLE y; --' })).rejects.toThrow(
      /invalid Postgres schema name/,
    );
  });
});

describeWith("DATABASE_URL", "PostgresSaver write guard", (url) => {
  it("runs the guard inside each write's transaction: a refusal stores nothing", async () => {
    const schema = uniqueSchemaName("cp");
    const refused = new Set(["fenced"]);
    const seen: string[] = [];
    const saver = await PostgresSaver.open({
      connectionString: url,
      poolConfig: TEST_POOL_CONFIG,
      schema,
      async writeGuard(threadId, query) {
        // The guard's query runs on the write's connection, inside its transaction.
        const { rows } = await query("SELECT txid_current_if_assigned() IS NULL AS fresh", []);
        seen.push(`${threadId}:${JSON.stringify(rows)}`);
        if (refused.has(threadId)) throw new Error(`thread ${threadId} is fenced`);
      },
    });
    try {
      const cp = { v: 1 as const, id: newCheckpointId(), ts: new Date().toISOString(), channelValues: {}, channelVersions: {}, versionsSeen: {} };
      const ok = await saver.put({ threadId: "free", checkpointNs: "" }, cp, { source: "input", step: -1, parents: {} });
      await saver.putWrites(ok, [["a", 1]], "task");
      await expect(saver.put({ threadId: "fenced", checkpointNs: "" }, cp, { source: "input", step: -1, parents: {} })).rejects.toThrow(/fenced/);
      expect(await saver.getTuple({ threadId: "fenced", checkpointNs: "" })).toBeUndefined();
      expect((await saver.getTuple(ok))?.pendingWrites).toEqual([["task", "a", 1]]);
      expect(seen).toEqual(['free:[{"fresh":true}]', 'free:[{"fresh":true}]', 'fenced:[{"fresh":true}]']);
    } finally {
      await saver.close();
      await dropSchema(url, schema);
    }
  });
});
