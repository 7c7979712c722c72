/**
 * What the web page needs from the SDK, against a real hub on port 0: REST
 * reads (health, who am I, assistants, threads, a review item with whether I
 * may answer it), the "*" queue across queues with each item's routing
 * facts, browser sockets in close mode (a refused token is a 4401 the client
 * stops on, not an endless 1006 retry), and token providers that can stop.
 */
import { describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { HubClient, HubClientError, closeModeUrl, platformSocketFactory, type PlatformWebSocketConstructor } from "../../client/index.ts";
import { mintToken } from "../../hub/auth/index.ts";
import { interrupt, StateGraph, START, END, lastValue, type Checkpointer } from "../../engine/index.ts";
import { WAIT, recordingClient, startTestHub } from "../support/client-hub.ts";

const SECRET = "a-test-secret-that-is-long-enough-32b";

/** Asks one question routed by its payload (queue, schema). */
function routedAssistant(checkpointer: Checkpointer) {
  const graph = new StateGraph({ queue: lastValue<string>(), answer: lastValue<unknown>() })
    .addNode("ask", (s) => ({
      answer: interrupt({ question: `For ${s.queue}?`, review: { queue: s.queue, responseSchema: { type: "object", required: ["approve"], properties: { approve: { type: "boolean" } } } } }),
    }))
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile({ checkpointer, name: "routed" });
  return { id: "routed", description: "One routed question.", graph };
}

describe("the SDK's REST reads", () => {
  it("health, me, assistants, threads and a review item with the viewer's verdict", async () => {
    const hub = await startTestHub();
    const { client } = recordingClient(hub);
    expect(await client.health()).toMatchObject({ ok: true, auth: "open" });
    expect(await client.me()).toEqual({ auth: "open", principal: { sub: "dev", name: "Developer", tenant: "default", roles: ["operator", "reviewer", "observer"] }, expires_at: null });
    expect((await client.assistants()).map((a) => a.assistant_id)).toContain("review");
    const thread = client.thread("t-rest");
    await thread.run("review", { topic: "x" });
    await vi.waitFor(() => expect(thread.interrupts).toHaveLength(1), WAIT);
    expect((await client.listThreads()).map((t) => [t.thread_id, t.assistant_id])).toContainEqual(["t-rest", "review"]);
    const id = thread.interrupts[0]?.interrupt_id ?? "";
    expect(await client.reviewItem(id)).toMatchObject({ interrupt_id: id, status: "open", viewer: { may_answer: true } });
    await thread.respond(id, { approve: true });
    expect(await client.reviewItem(id)).toMatchObject({ status: "answered", viewer: { may_answer: false, code: "already_answered" } });
    await expect(client.reviewItem("nope")).rejects.toMatchObject({ code: "no_such_interrupt" });
  });

  it("me reports the token's subject, roles and expiry", async () => {
    const hub = await startTestHub({ jwtSecret: SECRET });
    const token = await mintToken({ sub: "u_rita", name: "Rita", roles: ["reviewer"], expiresIn: "1h" }, SECRET);
    const { client } = recordingClient(hub, { token });
    const me = await client.me();
    expect(me).toMatchObject({ auth: "jwt", principal: { sub: "u_rita", name: "Rita", roles: ["reviewer"] } });
    expect(me.expires_at).toBeGreaterThan(Date.now() + 50 * 60_000);
    const anonymous = new HubClient({ url: hub.url });
    await expect(anonymous.me()).rejects.toMatchObject({ code: "unauthenticated" });
    anonymous.close();
  });
});

describe('the "*" queue', () => {
  it("lists items of every queue with their routing facts; routing never uses the name *", async () => {
    const hub = await startTestHub({ assistants: (cp) => [routedAssistant(cp)] });
    const { client } = recordingClient(hub);
    const inbox = client.queue("*");
    await inbox.subscribe();
    await client.thread("t-legal").run("routed", { queue: "legal" }, { subscribe: false });
    await client.thread("t-ops").run("routed", { queue: "ops" }, { subscribe: false });
    await client.thread("t-star").run("routed", { queue: "*" }, { subscribe: false });
    await vi.waitFor(() => expect(inbox.items).toHaveLength(3), WAIT);
    const byThread = Object.fromEntries(inbox.items.map((i) => [i.thread_id, i.review]));
    expect(byThread["t-legal"]).toMatchObject({ queue: "legal", assistant_id: "routed", expires_at: null, users: [], roles: [], response_schema: { type: "object" } });
    expect(byThread["t-ops"]?.queue).toBe("ops");
    // A payload naming "*" goes to the default queue instead.
    expect(byThread["t-star"]?.queue).toBe("default");
    expect(byThread["t-legal"]?.created_at).toEqual(expect.any(Number));

    // A second client's snapshot carries the same facts.
    const { client: late } = recordingClient(hub);
    const lateInbox = late.queue("*");
    await lateInbox.subscribe();
    await vi.waitFor(() => expect(lateInbox.items.map((i) => i.review?.queue).sort()).toEqual(["default", "legal", "ops"]), WAIT);
  });
});

describe("browser sockets and tokens", () => {
  it("asks the hub for close mode", () => {
    expect(new URL(closeModeUrl("ws://h:1/ws?access_token=t")).searchParams.get("refuse")).toBe("close");
  });

  it("a refused token over a platform socket stops the client with unauthenticated (4401)", async () => {
    const hub = await startTestHub({ jwtSecret: SECRET });
    const errors: HubClientError[] = [];
    // ws's WebSocket has the WHATWG handler properties: it stands in for a browser's.
    const client = new HubClient({ url: hub.url, token: "not-a-jwt", socketFactory: platformSocketFactory(WebSocket as unknown as PlatformWebSocketConstructor), reconnect: { initialDelayMs: 5, maxDelayMs: 20 } });
    client.on("error", (e) => errors.push(e));
    // Close mode: the hub accepts the upgrade, then closes with 4401 — which a browser can see.
    await client.connect().catch(() => undefined);
    await vi.waitFor(() => expect(client.state).toBe("closed"), WAIT);
    expect(errors.map((e) => [e.code, e.closeCode])).toEqual([["unauthenticated", 4401]]);
    client.close();
  });

  it("a token provider sees the 4401 and stops the client by throwing", async () => {
    const hub = await startTestHub({ jwtSecret: SECRET });
    const seen: Array<number | undefined> = [];
    const client = new HubClient({
      url: hub.url,
      socketFactory: platformSocketFactory(WebSocket as unknown as PlatformWebSocketConstructor),
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
      token: ({ closeCode }) => {
        seen.push(closeCode);
        if (closeCode === 4401) throw new HubClientError("unauthenticated", "signed out: the hub refused the token");
        return "bad-token";
      },
    });
    const stopped = new Promise<HubClientError>((resolve) => client.on("error", resolve));
    await client.connect().catch(() => undefined);
    expect(await stopped).toMatchObject({ code: "unauthenticated", message: "signed out: the hub refused the token" });
    expect(seen).toEqual([undefined, 4401]);
    expect(client.state).toBe("closed");
    client.close();
  });
});
