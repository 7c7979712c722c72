/** PostgresReviewStore against the audit export conformance suite, each test in a fresh schema. */
import { PostgresReviewStore } from "../../../../hub/storage/postgres/review-store.ts";
import { describeWith } from "../../../support/services.ts";
import { describeAuditExportConformance } from "../conformance/review-audit-export.ts";
import { freshDatabase } from "./fixture.ts";

describeWith("DATABASE_URL", "PostgresReviewStore audit export", (url) => {
  describeAuditExportConformance("PostgresReviewStore", async () => {
    const { db, dispose } = await freshDatabase(url);
    return { store: new PostgresReviewStore(db), dispose };
  });
});
