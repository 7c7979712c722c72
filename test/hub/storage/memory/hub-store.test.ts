/** MemoryHubStore against the hub store conformance suite. */
import { MemoryHubStore } from "../../../../hub/storage/memory/hub-store.ts";
import { describeHubStoreConformance } from "../conformance/hub-store.ts";

describeHubStoreConformance("MemoryHubStore", async () => ({
  store: new MemoryHubStore(),
  dispose: async () => {},
}));
