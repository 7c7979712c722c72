/**
 * Every event example in docs/PROTOCOL.md against what a real hub sends
 * (issue 14 item 18): a review run watched on every channel, claimed,
 * released, answered, resumed; then a run cancelled mid-message. For each
 * documented (method, data.event) the hub produced, the fields the example
 * shows are fields the hub sends, and the fields the hub always sends are
 * in the example. Kinds this flow does not produce are listed, so a new
 * one cannot slip by untested.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { END, START, StateGraph, lastValue, type Checkpointer } from "../../../engine/index.ts";
import { demoAssistants, type Assistant } from "../../../hub/index.ts";
import type { ProtocolEvent } from "../../../hub/protocol/index.ts";
import { ALL_CHANNELS, TestSocket, WAIT, interruptIdsOf, isRootLifecycle, testHub, wsUrl } from "../../support/hub.ts";

const text = readFileSync(fileURLToPath(new URL("../../../docs/PROTOCOL.md", import.meta.url)), "utf8");
const documented = [...text.matchAll(/```json protocol-event\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] ?? "{}") as ProtocolEvent);

/**
 * Produced elsewhere (their own tests): presence, resync, tools, custom, expiry, cancel voids, thread.status,
 * escalations and reminders (test/hub/review/e2e/timers.test.ts compares those with their examples),
 * votes and reassignment (test/hub/review/e2e/workflows.test.ts does).
 */
const NOT_IN_THIS_FLOW = ["custom", "input.cancelled", "input.escalated", "input.expired", "input.reassigned", "input.reminder", "input.voted", "presence", "resync", "thread.status", "tools/tool-error", "tools/tool-finished", "tools/tool-started"];

function failing(checkpointer: Checkpointer): Assistant {
  const graph = new StateGraph({ x: lastValue<number>() })
    .addNode("boom", () => {
      throw new Error("the model provider is down");
    })
    .addEdge(START, "boom")
    .addEdge("boom", END)
    .compile({ checkpointer, name: "fails" });
  return { id: "fails", description: "fails at once", graph };
}

/** A multi-action interrupt's own `input.requested` has no payload_digest: each of its action items has one (their queue copies show it). */
const exempt = (example: ProtocolEvent, key: string): boolean =>
  example.method === "input.requested" && key === "payload_digest" && example.queue === undefined && typeof example.params.data.payload === "object" && example.params.data.payload !== null && "action_requests" in example.params.data.payload;

/** Whose data is the graph's state (or a node's writes): its keys are the example graph's, not the protocol's. */
const STATE_KINDS = new Set(["values", "updates"]);

const kindOf = (e: ProtocolEvent): string => {
  const data = e.params.data as unknown;
  const sub = typeof data === "object" && data !== null && "event" in data && typeof data.event === "string" && (e.method === "lifecycle" || e.method === "messages" || e.method === "tools") ? `/${data.event}` : "";
  return `${e.method}${sub}`;
};
const keys = (value: unknown): string[] => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object.keys(value).sort() : []);

describe("PROTOCOL.md event examples vs a real hub", () => {
  it("show the fields the hub sends, and every field it always sends", async () => {
    const hub = await testHub({ assistants: (checkpointer) => [...demoAssistants({ tokenDelayMs: 5 })(checkpointer), failing(checkpointer)] });
    const url = wsUrl(hub, "/threads/t-doc/stream/events");
    const socket = await TestSocket.open(url);
    await socket.subscribe({ channels: ALL_CHANNELS });
    // The queue's named copies (`queue` on the envelope) come to queue subscribers.
    await socket.request("queue.subscribe", { queue: "default" });
    await socket.request("run.start", { assistant_id: "review", input: { topic: "the docs" } });
    await socket.waitForEvent(isRootLifecycle("interrupted"));
    const [id] = interruptIdsOf(socket.events);
    await socket.request("input.claim", { interrupt_id: id });
    await socket.request("input.release", { interrupt_id: id });
    await socket.request("input.respond", { namespace: [], interrupt_id: id, response: { approve: true } });
    await socket.waitForEvent(isRootLifecycle("completed"));
    const cancelling = await TestSocket.open(wsUrl(hub, "/threads/t-doc-cancel/stream/events"));
    await cancelling.subscribe({ channels: ALL_CHANNELS });
    await cancelling.request("run.start", { assistant_id: "review", input: { topic: "x" } });
    await vi.waitFor(() => expect(cancelling.events.some((e) => kindOf(e) === "messages/content-block-delta")).toBe(true), WAIT);
    await cancelling.request("run.cancel", {});
    await cancelling.waitForEvent(isRootLifecycle("failed"));

    const failed = await TestSocket.open(wsUrl(hub, "/threads/t-doc-fail/stream/events"));
    await failed.subscribe({ channels: ["lifecycle"] });
    await failed.request("run.start", { assistant_id: "fails", input: {} });
    await failed.waitForEvent(isRootLifecycle("failed"));

    const real = new Map<string, ProtocolEvent[]>();
    for (const e of [...socket.events, ...cancelling.events, ...failed.events]) real.set(kindOf(e), [...(real.get(kindOf(e)) ?? []), e]);
    const uncovered = new Set<string>();
    const problems: string[] = [];
    for (const example of documented) {
      const kind = kindOf(example);
      const seen = real.get(kind);
      if (!seen) {
        uncovered.add(kind.startsWith("custom") ? "custom" : kind);
        continue;
      }
      // Envelope and data: what the example shows is sent; what is always sent is shown.
      for (const [what, pick] of [["envelope", (e: ProtocolEvent) => keys(e).filter((k) => k !== "params")], ["data", (e: ProtocolEvent) => keys(e.params.data)]] as const) {
        const sent = new Set(seen.flatMap(pick));
        const always = pick(seen[0]!).filter((k) => seen.every((e) => pick(e).includes(k)));
        const shown = pick(example);
        if (what === "data" && STATE_KINDS.has(kind)) continue;
        for (const k of shown) if (!sent.has(k)) problems.push(`${kind} ${what}: the example shows "${k}", the hub never sends it`);
        // Examples abbreviate the envelope (its fields are documented once) and a state is the graph's own.
        if (what === "envelope" || STATE_KINDS.has(kind)) continue;
        for (const k of always) if (!shown.includes(k) && !exempt(example, k)) problems.push(`${kind} ${what}: the hub always sends "${k}", the example leaves it out`);
      }
    }
    expect(problems).toEqual([]);
    expect([...uncovered].sort()).toEqual(NOT_IN_THIS_FLOW);
  }, 60_000);
});
