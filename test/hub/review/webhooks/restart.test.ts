/**
 * The outbox is durable: a delivery still pending when the hub stops (its
 * receiver was down, the next try an hour away) is sent by the next process
 * on the same SQLite file, with the same webhook-id, and the earlier attempt
 * kept on its record.
 */
import { expect, it, vi } from "vitest";
import { newSecret } from "../../../../hub/review/webhooks/sign.ts";
import { authHeaders, reviewHub, startAndWait, tempDataDir, WAIT } from "../e2e/helpers.ts";
import { startReceiver } from "./receiver.ts";

it("a pending delivery survives a hub restart and is sent by the next process", async () => {
  const secret = newSecret();
  let up = false;
  const receiver = await startReceiver(secret, () => (up ? 204 : 503));
  const dataDir = tempDataDir();
  const endpoints = [{ id: "ops-hook", url: receiver.url, secret, tenant: "acme", events: ["input.requested"] }];
  const first = await reviewHub({ dataDir, webhooks: { endpoints, retryBaseMs: 3_600_000 } });
  await startAndWait(first, "wh-restart", "gate", {});
  await vi.waitFor(() => expect(receiver.received).toHaveLength(1), WAIT);
  const list = async (hub: typeof first) => {
    const response = await fetch(`${hub.url}/webhooks/deliveries`, { headers: await authHeaders("ada", ["admin"]) });
    return ((await response.json()) as { deliveries: Array<Record<string, unknown>> }).deliveries;
  };
  await vi.waitFor(async () => expect(await list(first)).toMatchObject([{ status: "pending", tries: 1 }]), WAIT);
  await first.close();

  up = true;
  // The next process's clock is two hours on: the retry is due when it starts.
  const second = await reviewHub({ dataDir, webhooks: { endpoints, retryBaseMs: 3_600_000, clock: () => Date.now() + 2 * 3_600_000 } });
  await vi.waitFor(() => expect(receiver.accepted).toHaveLength(1), WAIT);
  expect(receiver.accepted[0]?.id).toBe(receiver.received[0]?.id);
  expect(receiver.accepted[0]?.verified).toBe(true);
  await vi.waitFor(async () => expect(await list(second)).toMatchObject([{ status: "delivered", tries: 2 }]), WAIT);
  const [delivery] = await list(second);
  expect((delivery?.["attempts"] as Array<Record<string, unknown>>).map((a) => a["response_status"])).toEqual([503, 204]);
});
