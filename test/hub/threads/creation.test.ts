/**
 * Who may create a thread (issue 14 item 10). Thread ids are unique across
 * the hub, each thread belongs to one tenant: so creating one is a right, not
 * a side effect of looking. Only a principal who may start runs (operator)
 * creates a thread — by POST /threads, run.start, or by subscribing to an id
 * that does not exist yet. An observer or reviewer who subscribes to a
 * missing thread (WebSocket URL, subscription.subscribe, SSE stream, the
 * LangGraph API's join) gets not_found and creates nothing, so another
 * tenant's observer cannot take ids away. An id taken in another tenant looks
 * like a missing thread there (never "exists elsewhere").
 */
import { describe, expect, it } from "vitest";
import { mintToken } from "../../../hub/index.ts";
import { TestSocket, testHub, wsUrl } from "../../support/hub.ts";

const SECRET = "creation-secret-creation-secret-0123456789";

describe("thread creation", () => {
  it("observers and reviewers never create threads; operators do; another tenant's id looks missing", async () => {
    const hub = await testHub({ jwtSecret: SECRET });
    const token = (sub: string, tenant: string, roles: string[]) => mintToken({ sub, tenant, roles, expiresIn: "1h" }, SECRET);
    const watcherB = await token("watcher", "globex", ["observer"]);
    const reviewerB = await token("rev", "globex", ["reviewer"]);
    const operatorA = await token("op-a", "acme", ["operator"]);
    const operatorB = await token("op-b", "globex", ["operator"]);
    const auth = (t: string) => ({ authorization: `Bearer ${t}` });
    const exists = async (id: string, t: string) => (await fetch(`${hub.url}/threads/${id}`, { headers: auth(t) })).status;

    // An observer of tenant B tries every way of subscribing to ids tenant A will want.
    await expect(TestSocket.open(wsUrl(hub, "/threads/t1/stream"), { headers: auth(watcherB) })).rejects.toThrow(/Unexpected server response: 404/);
    const socket = await TestSocket.open(wsUrl(hub, "/ws"), { headers: auth(watcherB) });
    const subscribe = await socket.request("subscription.subscribe", { channels: ["lifecycle"] }, { thread_id: "t2" });
    expect(subscribe).toMatchObject({ type: "error", error: "not_found" });
    const reviewerSocket = await TestSocket.open(wsUrl(hub, "/ws"), { headers: auth(reviewerB) });
    expect(await reviewerSocket.request("subscription.subscribe", { channels: ["input"] }, { thread_id: "t2" })).toMatchObject({ type: "error", error: "not_found" });
    const sse = await fetch(`${hub.url}/threads/t3/stream`, { method: "POST", headers: { ...auth(watcherB), "content-type": "application/json" }, body: JSON.stringify({ channels: ["lifecycle"] }) });
    expect(sse.status).toBe(404);
    await sse.body?.cancel();
    const post = await fetch(`${hub.url}/threads`, { method: "POST", headers: { ...auth(watcherB), "content-type": "application/json" }, body: JSON.stringify({ thread_id: "t4" }) });
    expect(post.status).toBe(403);
    const join = await fetch(`${hub.url}/threads/t5/runs/r1/stream`, { headers: auth(watcherB) });
    expect(join.status).toBe(404);
    await join.body?.cancel();
    for (const id of ["t1", "t2", "t3", "t4", "t5"]) expect(await exists(id, operatorB)).toBe(404);

    // Tenant A's operator can use every one of them.
    for (const id of ["t1", "t2", "t3", "t4", "t5"]) {
      const created = await fetch(`${hub.url}/threads`, { method: "POST", headers: { ...auth(operatorA), "content-type": "application/json" }, body: JSON.stringify({ thread_id: id }) });
      expect(created.status, id).toBe(200);
    }
    // An operator's subscription creates a missing thread (the SDK names threads client-side).
    const opSocket = await TestSocket.open(wsUrl(hub, "/ws"), { headers: auth(operatorA) });
    expect(await opSocket.request("subscription.subscribe", { channels: ["lifecycle"] }, { thread_id: "t6" })).toMatchObject({ type: "success" });
    expect(await exists("t6", operatorA)).toBe(200);

    // Tenant B sees A's ids as missing, and creating one says nothing about A.
    expect(await exists("t1", watcherB)).toBe(404);
    const taken = await fetch(`${hub.url}/threads`, { method: "POST", headers: { ...auth(operatorB), "content-type": "application/json" }, body: JSON.stringify({ thread_id: "t1" }) });
    const body = (await taken.json()) as { error: string; message: string };
    expect(taken.status).toBe(404);
    expect(body.message).not.toMatch(/acme|tenant|exists/i);
  });
});
