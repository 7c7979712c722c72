/**
 * Issue 14, item 5, against a real hub process: subscriptions left behind by
 * closed connections (each with a filter of ~60 KB) are kept for
 * `subscription.reconnect` only within the byte bound and the age bound, not
 * just a count — the oldest are forgotten first, and what is kept is still
 * restored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HubProcess } from "../../support/hub-process.ts";
import { TestSocket } from "../../support/hub.ts";

const MAX_BYTES = 1024 * 1024;
const MAX_AGE_MS = 2_000;
let hub: HubProcess;

beforeAll(async () => {
  hub = await HubProcess.start({ entry: "child", config: { limits: { retainedSubscriptionBytes: MAX_BYTES, retainedSubscriptionMs: MAX_AGE_MS } } });
});
afterAll(async () => {
  await hub.stop();
});

/** Opens a socket, subscribes with a ~60 KB filter, closes it; the subscription's id. */
async function leftover(url: string, i: number): Promise<string> {
  const socket = await TestSocket.open(url);
  const id = await socket.subscribe({ channels: ["values"], namespaces: [[`${i}-${"n".repeat(60_000)}`]] });
  await socket.close();
  return id;
}

async function reconnect(url: string, id: string): Promise<boolean> {
  const socket = await TestSocket.open(url);
  const response = await socket.request("subscription.reconnect", { run_id: "any", subscriptions: [id] });
  await socket.close();
  return response.type === "success" && response.result["restored"] === true;
}

describe("subscriptions kept for reconnect", () => {
  it("are bounded in bytes and in age, the oldest forgotten first", { timeout: 60_000 }, async () => {
    const url = `${hub.wsUrl}/threads/t-leftover/stream/events`;
    const ids: string[] = [];
    // 60 filters of 60 KB: 3.6 MB, over three times the bound.
    for (let i = 0; i < 60; i++) ids.push(await leftover(url, i));
    await expect.poll(() => hub.metric("switchboard_connections")).toBe(0);
    const bytes = await hub.metric("switchboard_retained_subscription_bytes");
    const count = await hub.metric("switchboard_retained_subscriptions");
    expect(bytes).toBeGreaterThan(MAX_BYTES / 2);
    expect(bytes).toBeLessThanOrEqual(MAX_BYTES);
    expect(count).toBeLessThan(20);
    // The newest are still restored; the oldest are gone.
    expect(await reconnect(url, ids[0] ?? "")).toBe(false);
    expect(await reconnect(url, ids.at(-1) ?? "")).toBe(true);

    // Past the age bound nothing is kept (the one restored above was released again when its socket closed).
    await expect.poll(() => hub.metric("switchboard_retained_subscriptions"), { timeout: MAX_AGE_MS * 3, interval: 500 }).toBe(0);
    expect(await reconnect(url, ids.at(-2) ?? "")).toBe(false);
    expect(await hub.metric("switchboard_retained_subscription_bytes")).toBe(0);
  });
});
