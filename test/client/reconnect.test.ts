/**
 * Reconnect against a scripted hub: each thread is resubscribed from its
 * last seq (`since`), replayed duplicates are dropped, commands issued while
 * disconnected go out after the subscriptions are restored, and a `resync`
 * rebuilds the projections.
 */
import { describe, expect, it, vi } from "vitest";
import type { ProtocolCommand, ProtocolEvent } from "../../hub/protocol/index.ts";
import { ScriptedHub, WAIT, numberedValues, type ScriptedConnection } from "../support/scripted-hub.ts";

/** Answers subscribe with an id, then sends `replay(command, conn)` right after, as the hub does. */
function subscribeReplaying(hub: ScriptedHub, replay: (command: ProtocolCommand, conn: ScriptedConnection) => ProtocolEvent[]): void {
  let n = 0;
  hub.handler = (command, conn) => {
    if (command.method !== "subscription.subscribe") return undefined;
    conn.send({ type: "success", id: command.id, result: { subscription_id: `sub_${++n}` } });
    for (const event of replay(command, conn)) conn.send(event);
    return "none";
  };
}

const sinceOf = (command: ProtocolCommand | undefined): unknown => (command?.method === "subscription.subscribe" ? command.params["since"] : "not a subscribe");

describe("reconnect", () => {
  it("resubscribes from the last seq and drops replayed duplicates", async () => {
    const hub = await ScriptedHub.start();
    subscribeReplaying(hub, (command) => {
      if (hub.connections.length === 1) return [1, 2, 3].map((s) => numberedValues(s));
      expect(sinceOf(command)).toBe(3);
      return [3, 4, 5].map((s) => numberedValues(s)); // 3 is a duplicate a sloppy hub might send
    });
    const thread = hub.client().thread("th_1");
    const seqs: Array<number | undefined> = [];
    thread.on("event", (e) => seqs.push(e.seq));
    await thread.subscribe(["values"]);
    await vi.waitFor(() => expect(thread.lastSeq).toBe(3), WAIT);
    hub.last.ws.terminate();
    await vi.waitFor(() => expect(thread.lastSeq).toBe(5), WAIT);
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(thread.values).toEqual({ n: 5 });
    expect(sinceOf(hub.connections[1]?.commands[0])).toBe(3);
  });

  it("sends commands issued while disconnected after the subscriptions are restored", async () => {
    const hub = await ScriptedHub.start();
    subscribeReplaying(hub, () => [numberedValues(hub.connections.length)]);
    const client = hub.client({ reconnect: { initialDelayMs: 30, maxDelayMs: 30 } });
    const thread = client.thread("th_1");
    await thread.subscribe(["values"]);
    hub.last.ws.terminate();
    await vi.waitFor(() => expect(client.state).toBe("reconnecting"), WAIT);
    const cancelled = thread.cancel().catch((e: unknown) => e);
    await hub.waitForConnections(2);
    await hub.waitForCommand(hub.last, "run.cancel");
    expect(hub.last.commands.map((c) => c.method)).toEqual(["subscription.subscribe", "run.cancel"]);
    expect(await cancelled).toMatchObject({ code: "protocol_error" }); // the script answers {} without run_id
  });

  it("rebuilds the projections from a resync and goes on from its head_seq", async () => {
    const hub = await ScriptedHub.start();
    const resync: ProtocolEvent = {
      type: "event",
      seq: 900,
      event_id: "900:resync",
      thread_id: "th_1",
      method: "resync",
      params: {
        namespace: [],
        timestamp: 1,
        data: {
          reason: "evicted",
          head_seq: 900,
          snapshot: { values: { n: 900 }, interrupts: [{ interrupt_id: "i9", namespace: [], payload: "ok?" }], run: { run_id: "r9", status: "interrupted" } },
        },
      },
    };
    subscribeReplaying(hub, () => (hub.connections.length === 1 ? [numberedValues(1)] : [resync, numberedValues(900), numberedValues(901)]));
    const thread = hub.client().thread("th_1");
    const resyncs: string[] = [];
    thread.on("resync", (data) => resyncs.push(data.reason));
    await thread.subscribe(["values", "input", "lifecycle"]);
    hub.last.ws.terminate();
    await vi.waitFor(() => expect(thread.lastSeq).toBe(901), WAIT);
    expect(resyncs).toEqual(["evicted"]);
    expect(thread.values).toEqual({ n: 901 });
    expect(thread.interrupts.map((i) => i.interrupt_id)).toEqual(["i9"]);
    expect(thread.status).toEqual({ run_id: "r9", status: "interrupted" });
  });

  it("restores two subscriptions of a thread without losing the second one's share", async () => {
    const hub = await ScriptedHub.start();
    const input = (seq: number): ProtocolEvent => ({ ...numberedValues(seq), method: "input.requested", params: { namespace: [], timestamp: seq, data: { interrupt_id: `i${seq}`, payload: null } } });
    subscribeReplaying(hub, (command) => {
      if (command.method !== "subscription.subscribe") return [];
      const wantsInput = command.params.channels.includes("input");
      if (hub.connections.length === 1) return wantsInput ? [input(2)] : [numberedValues(1), numberedValues(3)];
      // since = 3: the values subscription replays 4 and 6, the input one 5.
      return wantsInput ? [input(5)] : [numberedValues(4), numberedValues(6)];
    });
    const thread = hub.client().thread("th_1");
    await thread.subscribe(["values"]);
    await thread.subscribe(["input"]);
    expect(thread.interrupts.map((i) => i.interrupt_id)).toEqual(["i2"]);
    hub.last.ws.terminate();
    await vi.waitFor(() => expect(thread.interrupts.map((i) => i.interrupt_id)).toEqual(["i2", "i5"]), WAIT);
    expect(thread.values).toEqual({ n: 6 });
    expect(hub.connections[1]?.commands.map(sinceOf)).toEqual([3, 3]);
  });

  it("close() stops reconnecting and fails what is pending", async () => {
    const hub = await ScriptedHub.start();
    const client = hub.client({ reconnect: { initialDelayMs: 10_000, maxDelayMs: 10_000 } });
    await client.connect();
    hub.last.ws.terminate();
    await vi.waitFor(() => expect(client.state).toBe("reconnecting"), WAIT);
    const pending = client.thread("th_1").cancel();
    client.close();
    await expect(pending).rejects.toMatchObject({ code: "client_closed", retryable: false });
    expect(client.state).toBe("closed");
    expect(client.pendingRequests).toBe(0);
  });
});
