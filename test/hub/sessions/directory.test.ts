/**
 * The subscription directory's retention: subscriptions of open connections
 * are held as long as those are; after a connection closes its subscriptions
 * are kept for a reconnect within a count, a byte and an age bound, the
 * oldest forgotten first.
 */
import { describe, expect, it } from "vitest";
import { SubscriptionDirectory, type SubscriptionInfo } from "../../../hub/sessions/directory.ts";

const info = (size = 0): SubscriptionInfo => ({ threadId: "t", tenant: "a", filter: { channels: ["values"], namespaces: [["n".repeat(size)]] } });

function directory(limits: Partial<{ retainedSubscriptions: number; retainedSubscriptionBytes: number; retainedSubscriptionMs: number }> = {}) {
  let now = 1_000;
  const dir = new SubscriptionDirectory({ retainedSubscriptions: 1000, retainedSubscriptionBytes: 1 << 30, retainedSubscriptionMs: 60_000, ...limits }, undefined, () => now);
  return { dir, advance: (ms: number) => (now += ms) };
}

describe("SubscriptionDirectory", () => {
  it("bounds what it keeps after a connection closes by bytes, oldest first", () => {
    const { dir } = directory({ retainedSubscriptionBytes: 200_000 });
    for (let i = 0; i < 10; i++) dir.remember(`s${i}`, info(60_000));
    // Open connections' subscriptions are not bounded here (their connections hold them anyway).
    expect(dir.retained).toEqual({ count: 0, bytes: 0 });
    for (let i = 0; i < 10; i++) dir.release(`s${i}`);
    expect(dir.retained.count).toBe(3);
    expect(dir.retained.bytes).toBeLessThanOrEqual(200_000);
    expect(dir.lookup("s0", "t", "a")).toBeUndefined();
    expect(dir.lookup("s9", "t", "a")).toMatchObject({ threadId: "t" });
  });

  it("bounds them by count and by age", () => {
    const { dir, advance } = directory({ retainedSubscriptions: 2, retainedSubscriptionMs: 5_000 });
    for (const id of ["a", "b", "c"]) {
      dir.remember(id, info());
      dir.release(id);
    }
    expect(dir.retained.count).toBe(2);
    expect(dir.lookup("a", "t", "a")).toBeUndefined();
    advance(4_000);
    dir.remember("d", info());
    dir.release("d");
    expect(dir.retained.count).toBe(2);
    advance(1_500);
    // b and c are 5.5 s old: past the age bound; d is 1.5 s old.
    expect(dir.lookup("c", "t", "a")).toBeUndefined();
    expect(dir.lookup("d", "t", "a")).toBeDefined();
    expect(dir.retained.count).toBe(1);
  });

  it("a restored subscription is held again until its new connection closes; forget drops it at once", () => {
    const { dir, advance } = directory({ retainedSubscriptionMs: 1_000 });
    dir.remember("s", info());
    dir.release("s");
    dir.reclaim("s", info());
    expect(dir.retained.count).toBe(0);
    advance(10_000);
    expect(dir.lookup("s", "t", "a")).toBeDefined();
    dir.release("s");
    expect(dir.retained.count).toBe(1);
    dir.forget("s");
    expect(dir.retained).toEqual({ count: 0, bytes: 0 });
    // Only on its own thread and tenant.
    dir.remember("x", info());
    expect(dir.lookup("x", "t", "b")).toBeUndefined();
    expect(dir.lookup("x", "u", "a")).toBeUndefined();
  });
});
