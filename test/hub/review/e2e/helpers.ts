/**
 * Fixtures for review end-to-end tests: a JWT hub on port 0, sockets for
 * distinct principals (minted with a test secret), and small test assistants
 * that count their node runs and carry a `review` routing field.
 */
import { expect } from "vitest";
import { END, START, StateGraph, interrupt, lastValue, reducer, type Checkpointer } from "../../../../engine/index.ts";
import { mintToken } from "../../../../hub/auth/index.ts";
import { demoAssistants, type Assistant, type HubConfig } from "../../../../hub/index.ts";
import type { ProtocolEvent, ProtocolResponse } from "../../../../hub/protocol/index.ts";
import { TestSocket, interruptIdsOf, isRootLifecycle, onCleanup, testHub, wsUrl } from "../../../support/hub.ts";
import { internalsOf } from "../../../../hub/hub.ts";

export const SECRET = "review-e2e-secret-that-is-long-enough!!";
export const REVIEWER = ["observer", "reviewer"];
export const OPERATOR = ["observer", "operator"];

type RunningHub = Awaited<ReturnType<typeof testHub>>;

export async function token(sub: string, roles: readonly string[], tenant = "acme", name = `${sub} (token)`): Promise<string> {
  return mintToken({ sub, name, tenant, roles, expiresIn: "10 min" }, SECRET);
}

export async function authHeaders(sub: string, roles: readonly string[], tenant = "acme"): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await token(sub, roles, tenant)}` };
}

/** A socket on the multiplexed /ws for this principal. */
export async function openAs(hub: RunningHub, sub: string, roles: readonly string[], tenant = "acme"): Promise<TestSocket> {
  return TestSocket.open(wsUrl(hub, "/ws"), { headers: await authHeaders(sub, roles, tenant) });
}

/** Node runs per node name, counted by the test assistants. */
/** An empty thread made by an operator: observers and reviewers never create one by subscribing. */
export async function createThread(hub: RunningHub, threadId: string, tenant = "acme"): Promise<void> {
  const response = await fetch(`${hub.url}/threads`, { method: "POST", headers: { ...(await authHeaders("olive", OPERATOR, tenant)), "content-type": "application/json" }, body: JSON.stringify({ thread_id: threadId }) });
  if (!response.ok) throw new Error(`POST /threads: ${response.status}`);
}

export type Calls = Record<string, number>;

/**
 * `gate`: ask (interrupt with the input's `review` routing) → done (counts its calls).
 * `fan3`: three parallel branches a, b, c that each ask, then `join`; counts every node run.
 */
export function testAssistants(calls: Calls) {
  const count = (node: string): void => {
    calls[node] = (calls[node] ?? 0) + 1;
  };
  return (checkpointer: Checkpointer): Assistant[] => {
    const gate = new StateGraph({ review: lastValue<unknown>(), answer: lastValue<unknown>(), done_calls: reducer((a: number, b: number) => a + b, () => 0) })
      .addNode("ask", (state) => ({ answer: interrupt<unknown>({ question: "ok?", ...(state.review === undefined ? {} : { review: state.review }) }) }))
      .addNode("done", () => {
        count("done");
        return { done_calls: 1 };
      })
      .addEdge(START, "ask")
      .addEdge("ask", "done")
      .addEdge("done", END)
      .compile({ checkpointer, name: "gate" });
    let fan = new StateGraph({ answers: reducer((all: string[], more: string[]) => [...all, ...more], () => []), joined: lastValue<boolean>() });
    for (const who of ["a", "b", "c"]) {
      fan = fan
        .addNode(who, () => {
          count(who);
          const answer = interrupt<unknown>({ who });
          return { answers: [`${who}=${String(answer)}`] };
        })
        .addEdge(START, who);
    }
    const fan3 = fan
      .addNode("join", () => {
        count("join");
        return { joined: true };
      })
      .addEdge(["a", "b", "c"], "join")
      .addEdge("join", END)
      .compile({ checkpointer, name: "fan3" });
    return [...demoAssistants({ tokenDelayMs: 0 })(checkpointer), { id: "gate", description: "Asks once (routing from the input), then done.", graph: gate }, { id: "fan3", description: "Three parallel questions, then join.", graph: fan3 }];
  };
}

export async function reviewHub(config: HubConfig = {}, calls: Calls = {}): Promise<RunningHub> {
  let hub: RunningHub | undefined;
  // Registered first, so it runs after the hub's own cleanup has closed it.
  onCleanup(() => {
    if (!hub) return; // it never started: the test fails on that
    expect(internalsOf(hub).reviews.timerArmed).toBe(false);
    expect(hub.stats().reviewQueueSubscribers).toBe(0);
    expect(hub.stats().presence).toMatchObject({ rooms: 0, connections: 0, states: 0 });
  });
  hub = await testHub({ jwtSecret: SECRET, assistants: testAssistants(calls), ...config });
  return hub;
}

export function ok(response: ProtocolResponse): Record<string, unknown> {
  if (response.type !== "success") throw new Error(`expected success, got ${response.error}: ${response.message}`);
  return response.result;
}

/** Starts a run as an operator on a fresh thread and waits until it is interrupted; returns the interrupt ids. */
export async function startAndWait(
  hub: RunningHub,
  threadId: string,
  assistantId: string,
  input: unknown,
  options: { starter?: string; params?: Record<string, unknown>; expected?: number } = {},
): Promise<{ operator: TestSocket; ids: string[] }> {
  const operator = await openAs(hub, options.starter ?? "olive", OPERATOR);
  await operator.subscribe({ channels: ["lifecycle", "input"] }, { thread_id: threadId });
  ok(await operator.request("run.start", { assistant_id: assistantId, input, ...options.params }, { thread_id: threadId }));
  await operator.waitForEvent(isRootLifecycle("interrupted"));
  const ids = [...new Set(interruptIdsOf(operator.events))];
  expect(ids).toHaveLength(options.expected ?? 1);
  // Items are stored before their question is published: REST reads see them now.
  return { operator, ids };
}

export const answeredEvents = (events: ProtocolEvent[]): ProtocolEvent[] => events.filter((e) => e.method === "input.answered");

export async function itemStatus(hub: RunningHub, id: string): Promise<string | undefined> {
  const found = await internalsOf(hub).reviews.service.review({ sub: "audit", name: "audit", tenant: "acme", roles: ["observer"] }, id);
  return found.ok ? found.item.status : undefined;
}

export { TestSocket, WAIT, isRootLifecycle, tempDataDir, wsUrl } from "../../../support/hub.ts";
