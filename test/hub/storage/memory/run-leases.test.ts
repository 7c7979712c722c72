/** MemoryRunLeases against the run lease conformance suite. */
import { MemoryRunLeases } from "../../../../hub/storage/memory/run-leases.ts";
import { describeLeasesConformance } from "../conformance/leases.ts";

describeLeasesConformance("MemoryRunLeases", async () => {
  const leases = new MemoryRunLeases();
  return { nodes: [leases, leases, leases], dispose: async () => {} };
});
