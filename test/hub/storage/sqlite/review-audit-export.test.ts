/** SqliteReviewStore against the audit export conformance suite, on a real file. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteReviewStore } from "../../../../hub/storage/sqlite/index.ts";
import { describeAuditExportConformance } from "../conformance/review-audit-export.ts";

describeAuditExportConformance("SqliteReviewStore", async () => {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-audit-"));
  const store = new SqliteReviewStore(join(dir, "hub.db"));
  return {
    store,
    dispose: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
