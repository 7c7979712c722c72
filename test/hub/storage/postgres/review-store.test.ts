/** PostgresReviewStore against the review conformance suite, each test in an empty schema of its own (fixture.ts); plus a race across pools. */
import { expect, it } from "vitest";
import { PostgresReviewStore } from "../../../../hub/storage/postgres/review-store.ts";
import { PostgresDatabase } from "../../../../hub/storage/postgres/database.ts";
import { describeWith, TEST_POOL_CONFIG } from "../../../support/services.ts";
import { describeReviewStoreConformance } from "../conformance/review-store.ts";
import { T0, newItem } from "../../review/fixtures.ts";
import { freshDatabase } from "./fixture.ts";

describeWith("DATABASE_URL", "PostgresReviewStore", (url) => {
  describeReviewStoreConformance("PostgresReviewStore", async () => {
    const { db, dispose } = await freshDatabase(url);
    const peers: PostgresDatabase[] = [];
    return {
      store: new PostgresReviewStore(db),
      // Another node: its own pool on the same schema.
      peer: async () => {
        const peer = await PostgresDatabase.open({ connectionString: url, schema: db.schema, poolConfig: TEST_POOL_CONFIG });
        peers.push(peer);
        return new PostgresReviewStore(peer);
      },
      dispose: async () => {
        await Promise.all(peers.map((p) => p.close()));
        await dispose();
      },
    };
  });

  it("counts exactly k votes of a k_of_n quorum voted from 3 nodes' pools at once, and resumes it once", async () => {
    const { db, dispose } = await freshDatabase(url);
    const others = await Promise.all([1, 2].map(() => PostgresDatabase.open({ connectionString: url, schema: db.schema, poolConfig: TEST_POOL_CONFIG })));
    try {
      const stores = [db, ...others].map((d) => new PostgresReviewStore(d));
      await stores[0]!.createItem(newItem("q", { routing: { quorum: { mode: "k_of_n", k: 3 } } }), T0);
      const votes = await Promise.all(
        Array.from({ length: 30 }, (_, i) => stores[i % 3]!.answer("q", { sub: `r${i}`, name: `R${i}`, tenant: "acme", roles: ["reviewer"] }, { type: "approve", i }, T0 + 1)),
      );
      expect(votes.filter((v) => v.ok)).toHaveLength(3);
      expect(votes.filter((v) => v.ok && v.vote?.outcome === "approved")).toHaveLength(1);
      const item = await stores[2]!.getItem("q");
      expect(item?.votes).toHaveLength(3);
      expect(item?.status).toBe("answered");
      for (const lost of votes.filter((v) => !v.ok)) expect(lost).toMatchObject({ code: "already_answered", winner: item?.answer?.by });
      const resumes = await Promise.all(stores.map((s, i) => s.takeResume("r1", "batch", T0 + 2, `resume-${i}`)));
      expect(resumes.filter((r) => r !== null)).toHaveLength(1);
    } finally {
      await Promise.all(others.map((o) => o.close()));
      await dispose();
    }
  });

  it("lets the database pick one winner among 30 answers from 3 nodes' pools", async () => {
    const { db, dispose } = await freshDatabase(url);
    const others = await Promise.all([1, 2].map(() => PostgresDatabase.open({ connectionString: url, schema: db.schema, poolConfig: TEST_POOL_CONFIG })));
    try {
      const stores = [db, ...others].map((d) => new PostgresReviewStore(d));
      await stores[0]!.createItem(newItem("i1"), T0);
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          stores[i % 3]!.answer("i1", { sub: `r${i}`, name: `R${i}`, tenant: "acme", roles: ["reviewer"] }, `answer ${i}`, T0 + 1),
        ),
      );
      const winners = answers.filter((a) => a.ok);
      expect(winners).toHaveLength(1);
      const losers = answers.filter((a) => !a.ok);
      expect(losers).toHaveLength(29);
      const winner = winners[0]!.ok ? winners[0]!.item.answer?.by : undefined;
      for (const lost of losers) expect(lost).toMatchObject({ code: "already_answered", winner });
      const audit = await stores[1]!.auditOf("i1");
      expect(audit.filter((e) => e.kind === "answered")).toHaveLength(1);
      expect(audit.filter((e) => e.kind === "rejected")).toHaveLength(29);
    } finally {
      await Promise.all(others.map((o) => o.close()));
      await dispose();
    }
  });
});
