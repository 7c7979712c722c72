/** MemoryReviewStore against the review conformance suite. */
import { MemoryReviewStore } from "../../../../hub/storage/memory/index.ts";
import { describeReviewStoreConformance } from "../conformance/review-store.ts";

describeReviewStoreConformance("MemoryReviewStore", async () => ({
  store: new MemoryReviewStore(),
  dispose: async () => {},
}));
