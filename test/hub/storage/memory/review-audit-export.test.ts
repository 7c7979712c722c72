/** MemoryReviewStore against the audit export conformance suite. */
import { MemoryReviewStore } from "../../../../hub/storage/memory/index.ts";
import { describeAuditExportConformance } from "../conformance/review-audit-export.ts";

describeAuditExportConformance("MemoryReviewStore", async () => ({ store: new MemoryReviewStore(), dispose: async () => {} }));
