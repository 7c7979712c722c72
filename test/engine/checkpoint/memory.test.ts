/** MemorySaver against the checkpointer conformance suite. */
import { MemorySaver } from "../../../engine/checkpoint/memory.ts";
import { describeCheckpointerConformance } from "./conformance.ts";

describeCheckpointerConformance("MemorySaver", async () => ({
  saver: new MemorySaver(),
  dispose: async () => {},
}));
