/** MemoryHubStore against the hub store conformance suite. */
import { MemoryHubStore } from "../../../hub/store/memory.ts";
import { describeHubStoreConformance } from "./conformance.ts";

describeHubStoreConformance("MemoryHubStore", async () => ({
  store: new MemoryHubStore(),
  dispose: async () => {},
}));
