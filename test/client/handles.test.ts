/**
 * Queue handles and presence against a scripted hub: the queue snapshot,
 * items that appear and disappear with input.* events, routing when the same
 * client also watches the thread, answer/claim sent to the item's thread,
 * the snapshot taken again after a reconnect; presence sent, listed and
 * re-sent after a reconnect.
 */
import { describe, expect, it, vi } from "vitest";
import type { ProtocolEvent } from "../../hub/protocol/index.ts";
import { ScriptedHub, WAIT } from "../support/scripted-hub.ts";

const ada = { sub: "u_ada", name: "Ada" };
const requested = (threadId: string, id: string, seq: number, extra: Record<string, unknown> = {}): ProtocolEvent => ({
  type: "event",
  seq,
  thread_id: threadId,
  run_id: "r1",
  method: "input.requested",
  params: { namespace: ["review:t1"], timestamp: seq, node: "ask", data: { interrupt_id: id, payload: { q: id }, ...extra } },
});
const answered = (threadId: string, id: string, seq: number): ProtocolEvent => ({
  type: "event",
  seq,
  thread_id: threadId,
  method: "input.answered",
  params: { namespace: [], timestamp: seq, data: { interrupt_ids: [id], answered_by: ada, answered_at: seq } },
});

describe("queue handle", () => {
  it("lists the snapshot, follows items appearing and disappearing, and acts on the item's thread", async () => {
    const hub = await ScriptedHub.start();
    let snapshots = 0;
    hub.handler = (command, conn) => {
      if (command.method === "queue.subscribe") {
        // As the hub does: the reply counts the open items, their events follow.
        snapshots++;
        const open = snapshots === 1 ? [requested("a", "i1", 1)] : [requested("c", "i7", 1)];
        conn.send({ type: "success", id: command.id, result: { subscription_id: `q${snapshots}`, items: open.length } });
        for (const event of open) conn.send(JSON.stringify({ ...event, queue: "legal-review" }));
        return "none";
      }
      if (command.method === "input.claim") return { type: "success", id: command.id, thread_id: command.thread_id, result: { interrupt_id: command.params.interrupt_id, expires_at: 99 } };
      return undefined;
    };
    const client = hub.client();
    const queue = client.queue("legal-review");
    expect(client.queue("legal-review")).toBe(queue);
    const changes: number[] = [];
    queue.on("items", (items) => changes.push(items.length));
    await queue.subscribe();
    expect(queue.items.map((i) => [i.thread_id, i.interrupt_id])).toEqual([["a", "i1"]]);

    hub.last.send(requested("b", "i2", 5));
    await vi.waitFor(() => expect(queue.items.map((i) => i.interrupt_id)).toEqual(["i1", "i2"]), WAIT);
    hub.last.send(answered("a", "i1", 9));
    await vi.waitFor(() => expect(queue.items.map((i) => i.interrupt_id)).toEqual(["i2"]), WAIT);
    expect(queue.resolved).toEqual([
      { interrupt_id: "i1", thread_id: "a", outcome: "answered", answered_by: ada, at: 9, payload: { q: "i1" }, namespace: ["review:t1"], node: "ask", run_id: "r1", requested_at: 1 },
    ]);

    const [item] = queue.items;
    if (!item) throw new Error("no item");
    expect(await queue.claim(item, 1_000)).toEqual({ expires_at: 99 });
    await queue.answer(item, { approve: true });
    const sent = hub.last.commands.filter((c) => c.method === "input.claim" || c.method === "input.respond");
    expect(sent.map((c) => [c.method, c.thread_id])).toEqual([["input.claim", "b"], ["input.respond", "b"]]);
    expect(sent[1]?.params).toEqual({ namespace: ["review:t1"], interrupt_id: "i2", response: { approve: true } });

    // After a reconnect the queue subscribes again and the new snapshot replaces the list.
    hub.last.ws.terminate();
    await vi.waitFor(() => expect(queue.items.map((i) => i.interrupt_id)).toEqual(["i7"]), WAIT);
    expect(changes).toEqual([1, 2, 1, 1]);
    await queue.close();
    expect(queue.listenerCount).toBe(0);
    expect(hub.last.commands.at(-1)?.method).toBe("queue.unsubscribe");
  });

  it("when the client also watches the thread, only events naming the queue add items", async () => {
    const hub = await ScriptedHub.start();
    hub.handler = (command) => {
      if (command.method === "queue.subscribe") return { type: "success", id: command.id, result: { subscription_id: "q1" } };
      if (command.method === "subscription.subscribe") return { type: "success", id: command.id, thread_id: "b", result: { subscription_id: "s1" } };
      return undefined;
    };
    const client = hub.client();
    const queue = client.queue("legal-review");
    const thread = client.thread("b");
    await queue.subscribe();
    await thread.subscribe(["input"]);
    hub.last.send(requested("b", "i2", 5)); // from the thread subscription: not for the queue
    hub.last.send(JSON.stringify({ ...requested("b", "i3", 6), queue: "legal-review" })); // envelope extension
    hub.last.send(requested("b", "i4", 7, { queue: "other-queue" }));
    await vi.waitFor(() => expect(thread.interrupts.map((i) => i.interrupt_id)).toEqual(["i2", "i3", "i4"]), WAIT);
    expect(queue.items.map((i) => i.interrupt_id)).toEqual(["i3"]);
  });
});

describe("presence over the scripted hub", () => {
  it("sends this client's state as an awareness update, lists relayed states, and re-sends after a reconnect", async () => {
    const { decodeAwarenessUpdate, encodeAwarenessUpdate } = await import("../../client/index.ts");
    const hub = await ScriptedHub.start();
    hub.handler = (command) =>
      command.method === "subscription.subscribe" ? { type: "success", id: command.id, thread_id: "th_1", result: { subscription_id: "s1" } } : undefined;
    const client = hub.client();
    const thread = client.thread("th_1");
    await thread.subscribe(["lifecycle"]);
    await thread.setPresence({ looking_at: "int_1" });
    const sent = await hub.waitForCommand(hub.last, "presence.update");
    const update = sent.method === "presence.update" ? sent.params.update : "";
    const [mine] = decodeAwarenessUpdate(update);
    expect(mine?.state).toEqual({ looking_at: "int_1" });

    const relay = encodeAwarenessUpdate([{ clientId: 7, clock: 1, state: { user: { name: "Grace" } } }]);
    hub.last.send({ type: "event", thread_id: "th_1", method: "presence", params: { namespace: [], timestamp: 1, data: { update: relay } } });
    await vi.waitFor(() => expect(thread.presence).toEqual([{ clientId: 7, state: { user: { name: "Grace" } } }]), WAIT);

    hub.last.ws.terminate();
    await hub.waitForConnections(2);
    const again = await hub.waitForCommand(hub.last, "presence.update");
    const [renewed] = decodeAwarenessUpdate(again.method === "presence.update" ? again.params.update : "");
    expect(renewed).toMatchObject({ clientId: mine?.clientId, state: { looking_at: "int_1" } });
    expect(hub.last.commands.map((c) => c.method)).toEqual(["subscription.subscribe", "presence.update"]);
  });
});
