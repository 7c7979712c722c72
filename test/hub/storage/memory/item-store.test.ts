/** MemoryItemStore against the item store conformance suite. */
import { MemoryItemStore } from "../../../../hub/storage/memory/index.ts";
import { describeItemStoreConformance } from "../conformance/item-store.ts";

describeItemStoreConformance("MemoryItemStore", async () => ({ store: new MemoryItemStore(), dispose: async () => {} }));
