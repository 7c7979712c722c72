/** MemoryReviewStore against the review conformance suite. */
import { MemoryReviewStore } from "../../../../hub/storage/memory/index.ts";
import { describeReviewStoreConformance } from "../conformance/review-store.ts";

describeReviewStoreConformance("MemoryReviewStore", async () => {
  const store = new MemoryReviewStore();
  return { store, peer: async () => store, dispose: async () => {} };
});
