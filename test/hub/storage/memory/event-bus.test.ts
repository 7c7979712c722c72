/** MemoryEventBus against the event bus conformance suite (one bus, seen as three nodes). */
import { MemoryEventBus } from "../../../../hub/storage/memory/event-bus.ts";
import { describeBusConformance } from "../conformance/bus.ts";

describeBusConformance("MemoryEventBus", async () => {
  const bus = new MemoryEventBus({ maxLen: 200 });
  return { nodes: [bus, bus, bus], maxLen: 200, dispose: () => bus.close() };
});
