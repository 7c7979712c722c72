/** SqliteItemStore against the item store conformance suite, on a real file; items survive a reopen. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SqliteItemStore } from "../../../../hub/storage/sqlite/index.ts";
import { describeItemStoreConformance } from "../conformance/item-store.ts";

async function tempDir(): Promise<{ path: string; dispose(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "switchboard-items-"));
  return { path, dispose: () => rm(path, { recursive: true, force: true }) };
}

describeItemStoreConformance("SqliteItemStore", async () => {
  const dir = await tempDir();
  const store = new SqliteItemStore(join(dir.path, "hub.db"));
  return {
    store,
    dispose: async () => {
      await store.close();
      await dir.dispose();
    },
  };
});

it("SqliteItemStore keeps items across a reopen, and stamps later times after it", async () => {
  const dir = await tempDir();
  try {
    const file = join(dir.path, "hub.db");
    const first = new SqliteItemStore(file);
    const put = await first.put("acme", ["a"], "k", { v: 1 });
    await first.close();
    const second = new SqliteItemStore(file);
    expect(await second.get("acme", ["a"], "k")).toEqual(put);
    expect((await second.put("acme", ["a"], "j", {})).updatedAt > put.updatedAt).toBe(true);
    await second.close();
  } finally {
    await dir.dispose();
  }
});
