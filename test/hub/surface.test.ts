/**
 * The Hub object's public surface (what `switchboard/hub` gives code that
 * embeds a hub): its assistants, its auth mode, and `stats()`, which reports
 * the same numbers as /metrics — checked against a scrape while a socket is
 * subscribed, and at zero once it has left.
 */
import { describe, expect, it } from "vitest";
import { WAIT, TestSocket, testHub, wsUrl } from "../support/hub.ts";

const SECRET = "surface-secret-surface-secret-0123456789";

/** One gauge or counter from the Prometheus text of /metrics. */
async function scrape(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`/metrics has no ${name}`);
  return Number(line.slice(name.length + 1));
}

describe("Hub", () => {
  it("lists its assistants and says whether clients need a token", async () => {
    const open = await testHub();
    expect(open.assistants().map((a) => a.id)).toEqual(["review", "parallel-review", "expense-approval"]);
    expect(open.auth).toBe("open");
    const jwt = await testHub({ jwtSecret: SECRET });
    expect(jwt.auth).toBe("jwt");
  });

  it("stats() are the numbers /metrics reports, live", async () => {
    const hub = await testHub();
    expect(hub.stats()).toMatchObject({ connections: 0, subscriptions: 0, sseStreams: 0, threadsLoaded: 0, reviewQueueSubscribers: 0, presence: { rooms: 0 } });

    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-stats/stream/events"));
    await socket.subscribe({ channels: ["lifecycle"] });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "stats" } });
    await socket.waitForEvent((e) => e.method === "lifecycle");
    const live = hub.stats();
    expect(live).toMatchObject({ connections: 1, subscriptions: 1, threadsLoaded: 1 });
    expect(live.eventsPublished).toBeGreaterThan(0);
    for (const [field, metric] of [
      ["connections", "switchboard_connections"],
      ["subscriptions", "switchboard_subscriptions"],
      ["threadsLoaded", "switchboard_threads_loaded"],
      ["reviewQueueSubscribers", "switchboard_review_queue_subscribers"],
    ] as const) {
      expect(await scrape(hub.url, metric), metric).toBe(hub.stats()[field]);
    }

    await socket.close();
    await expect.poll(() => hub.stats().connections, WAIT).toBe(0);
    expect(hub.stats().subscriptions).toBe(0);
    expect(await scrape(hub.url, "switchboard_connections")).toBe(0);
  });
});
