/** SqliteLinkUses against the answer-link use conformance suite, on a real file (a second connection races). */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteLinkUses } from "../../../../hub/storage/sqlite/index.ts";
import type { LinkUses } from "../../../../hub/review/links/uses.ts";
import { describeLinkUsesConformance } from "../conformance/link-uses.ts";

describeLinkUsesConformance("SqliteLinkUses", async () => {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-links-"));
  const file = join(dir, "hub.db");
  const uses = new SqliteLinkUses(file);
  const others: LinkUses[] = [];
  return {
    uses,
    other: async () => {
      const other = new SqliteLinkUses(file);
      others.push(other);
      return other;
    },
    dispose: async () => {
      for (const o of others) await o.close();
      await uses.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
