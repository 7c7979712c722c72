/**
 * Review events other engineers' workflows add reach webhooks through the
 * same outbox when an endpoint's filter names them: a reminder (r18-time's
 * `input.reminder`) fired by the hub's timer is delivered, signed, once.
 */
import { expect, it, vi } from "vitest";
import { internalsOf } from "../../../../hub/hub.ts";
import { newSecret } from "../../../../hub/review/webhooks/sign.ts";
import { manualClock } from "../fixtures.ts";
import { reviewHub, startAndWait, WAIT } from "../e2e/helpers.ts";
import { startReceiver } from "./receiver.ts";

it("an input.reminder named in an endpoint's filter is delivered once per reminder", async () => {
  const secret = newSecret();
  const receiver = await startReceiver(secret);
  const clock = manualClock(Date.now());
  const hub = await reviewHub({
    review: { clock: clock.now },
    webhooks: { endpoints: [{ id: "pager", url: receiver.url, secret, tenant: "acme", events: ["input.reminder"] }] },
  });
  const { ids: [id] } = await startAndWait(hub, "wh-remind", "gate", { review: { queue: "ops", remind: { every: "1m", max: 1 } } });
  clock.advance(61_000);
  await internalsOf(hub).reviews.tick();
  await vi.waitFor(() => expect(receiver.accepted).toHaveLength(1), WAIT);
  // A second tick with nothing due sends nothing more.
  await internalsOf(hub).reviews.tick();
  expect(receiver.accepted[0]).toMatchObject({ type: "input.reminder", verified: true, data: { interrupt_id: id, queue: "ops", thread_id: "wh-remind" } });
  const outbox = internalsOf(hub).webhooks.outbox;
  await vi.waitFor(async () => expect((await outbox.list({ tenant: "acme", limit: 10 })).map((d) => [d.type, d.status])).toEqual([["input.reminder", "delivered"]]), WAIT);
});
