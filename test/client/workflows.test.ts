/**
 * The SDK's side of review workflows (issue 18): an item's payload_digest on
 * the queue view, an answer bound to it (`stale_payload` otherwise), and
 * `reassign` — the queue it left drops it, the queue it went to lists it.
 */
import { describe, expect, it, vi } from "vitest";
import { HubClientError } from "../../client/index.ts";
import { mintToken } from "../../hub/auth/index.ts";
import { WAIT, recordingClient, startTestHub } from "../support/client-hub.ts";

const SECRET = "sdk-workflows-secret-that-is-long-enough!!";
const tokenOf = (sub: string, roles: string[]) => () => mintToken({ sub, name: sub, tenant: "acme", roles, expiresIn: "5 min" }, SECRET);

describe("SDK: payload digests and reassignment", () => {
  it("answers bound to the digest the view shows; reassign moves the item between queue handles", async () => {
    const hub = await startTestHub({ jwtSecret: SECRET });
    // A review admin (may move items) who did not start the run (self-approval is off).
    const { client } = recordingClient(hub, { token: tokenOf("u_rita", ["reviewer", "observer", "review-admin"]) });
    const operator = recordingClient(hub, { token: tokenOf("u_olga", ["operator", "observer"]) }).client;
    const defaults = client.queue("default");
    const legal = client.queue("legal");
    await defaults.subscribe();
    await legal.subscribe();
    const started = operator.thread("t-sdk-move");
    await started.run("review", { topic: "moving" });
    await vi.waitFor(() => expect(started.interrupts).toHaveLength(1), WAIT);
    const thread = client.thread("t-sdk-move");
    await thread.subscribe();
    await vi.waitFor(() => expect(defaults.items).toHaveLength(1), WAIT);
    const [item] = defaults.items;
    if (!item) throw new Error("no item");
    expect(item.payload_digest).toMatch(/^[0-9a-f]{64}$/);

    const stale = await thread.respond(item.interrupt_id, { approve: true }, { payloadDigest: "0".repeat(64) }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(HubClientError);
    expect(stale).toMatchObject({ code: "stale_payload", retryable: false });

    expect(await thread.reassign(item.interrupt_id, { queue: "legal", reason: "needs a lawyer" })).toEqual({ queue: "legal", users: [], roles: [] });
    await vi.waitFor(() => expect(defaults.items).toEqual([]), WAIT);
    await vi.waitFor(() => expect(legal.items.map((i) => i.interrupt_id)).toEqual([item.interrupt_id]), WAIT);
    const moved = legal.items[0]!;
    expect(moved.payload_digest).toBe(item.payload_digest);
    await legal.answer(moved, { approve: true });
    await vi.waitFor(() => expect(thread.status.status).toBe("completed"), WAIT);
    await vi.waitFor(() => expect(legal.items).toEqual([]), WAIT);
  });
});
