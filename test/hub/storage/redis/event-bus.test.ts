/** RedisEventBus against the event bus conformance suite: three clients of the machine's Redis, a key prefix per test. */
import { randomBytes } from "node:crypto";
import { RedisEventBus } from "../../../../hub/storage/redis/event-bus.ts";
import { describeWith } from "../../../support/services.ts";
import { describeBusConformance } from "../conformance/bus.ts";

describeWith("REDIS_URL", "RedisEventBus", (url) => {
  describeBusConformance("RedisEventBus", async () => {
    const prefix = `sbtest:${randomBytes(6).toString("hex")}:`;
    const nodes = await Promise.all([0, 1, 2].map(() => RedisEventBus.connect({ url, prefix, maxLen: 200, retentionMs: 60_000 })));
    return {
      nodes: [nodes[0]!, nodes[1]!, nodes[2]!],
      maxLen: 200,
      dispose: async () => {
        await Promise.all(nodes.map((n) => n.close()));
      },
    };
  });
});
