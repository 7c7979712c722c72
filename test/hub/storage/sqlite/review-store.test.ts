/** SqliteReviewStore against the review conformance suite, on a real file; plus what only a file can show. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteReviewStore } from "../../../../hub/storage/sqlite/index.ts";
import { SqliteHubStore } from "../../../../hub/storage/sqlite/index.ts";
import { describeReviewStoreConformance } from "../conformance/review-store.ts";
import { T0, alice, bob, newItem } from "../../review/fixtures.ts";

async function tempDir(): Promise<{ path: string; dispose(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "switchboard-review-"));
  return { path, dispose: () => rm(path, { recursive: true, force: true }) };
}

describeReviewStoreConformance("SqliteReviewStore", async () => {
  const dir = await tempDir();
  const file = join(dir.path, "hub.db");
  const store = new SqliteReviewStore(file);
  const peers: SqliteReviewStore[] = [];
  return {
    store,
    peer: async () => {
      const peer = new SqliteReviewStore(file);
      peers.push(peer);
      return peer;
    },
    dispose: async () => {
      for (const peer of peers) await peer.close();
      await store.close();
      await dir.dispose();
    },
  };
});

describe("SqliteReviewStore file", () => {
  let dir: { path: string; dispose(): Promise<void> };
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await dir.dispose();
  });

  it("lets the database decide between two connections to one file", async () => {
    const file = join(dir.path, "hub.db");
    const one = new SqliteReviewStore(file);
    const two = new SqliteReviewStore(file);
    try {
      await one.createItem(newItem("i1"), T0);
      expect((await two.createItem(newItem("i1"), T0 + 1)).created).toBe(false);
      expect(await one.answer("i1", alice, "first", T0 + 2)).toMatchObject({ ok: true });
      expect(await two.answer("i1", bob, "second", T0 + 3)).toMatchObject({
        ok: false,
        code: "already_answered",
        winner: { sub: "alice", name: "Alice" },
      });
      expect((await one.auditOf("i1")).map((e) => e.kind)).toEqual(["requested", "answered", "rejected"]);
      await one.createItem(newItem("i2"), T0);
      const [a, b] = await Promise.all([one.takeResume("r1", "eager", T0 + 4, "one"), two.takeResume("r1", "eager", T0 + 4, "two")]);
      expect([a, b].filter((x) => x !== null)).toHaveLength(1);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("keeps items and audit across a reopen", async () => {
    const file = join(dir.path, "hub.db");
    const first = new SqliteReviewStore(file);
    await first.createItem(newItem("i1", { routing: { onExpire: { response: 0 } } }), T0);
    await first.claim("i1", alice, 1_000, T0 + 1);
    const item = await first.getItem("i1");
    const audit = await first.auditOf("i1");
    await first.close();
    expect(first.db.open).toBe(false);
    const second = new SqliteReviewStore(file);
    try {
      expect(await second.getItem("i1")).toEqual(item);
      expect(await second.auditOf("i1")).toEqual(audit);
      expect(item?.routing.onExpire).toEqual({ response: 0 });
    } finally {
      await second.close();
    }
  });

  it("shares the hub's Database under hub_review_ tables and leaves it open on close", async () => {
    const hub = new SqliteHubStore(join(dir.path, "switchboard.sqlite"));
    const reviews = new SqliteReviewStore(hub.db);
    await reviews.createItem(newItem("i1"), T0);
    const names = hub.db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE name LIKE 'hub\\_review\\_%' ESCAPE '\\' ORDER BY name")
      .all()
      .map((r) => r.name);
    expect(names).toEqual([
      "hub_review_audit",
      "hub_review_audit_at",
      "hub_review_audit_item",
      "hub_review_items",
      "hub_review_items_claims",
      "hub_review_items_due",
      "hub_review_items_queue",
      "hub_review_items_resume",
      "hub_review_items_run",
      "hub_review_items_thread",
      "hub_review_items_timers",
    ]);
    await reviews.close();
    expect(hub.db.open).toBe(true);
    await hub.close();
  });
});
