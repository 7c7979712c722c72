/**
 * One error body over HTTP: the REST routes, the review routes and the
 * LangGraph API answer a refusal with the WebSocket error reply's fields
 * (`error`, `message`, `details`; already_answered adds `winner` and
 * `answered_at`); the LangGraph API adds `detail` and the details' fields.
 */
import { describe, expect, it } from "vitest";
import { errorBody, failResponse } from "../../../hub/http/errors.ts";
import { SwitchboardError } from "../../../hub/protocol/index.ts";
import { testHub } from "../../support/hub.ts";

const winner = { sub: "u_ada", name: "Ada" };
const answered = () => new SwitchboardError("already_answered", "answered by Ada", { interrupt_id: "i1", winner, answered_by: winner, answered_at: 1767225603990 });

describe("HTTP errors", () => {
  it("the body is the error reply without type and id, winner included", async () => {
    expect(errorBody(answered())).toEqual({ error: "already_answered", message: "answered by Ada", details: { interrupt_id: "i1", winner, answered_by: winner, answered_at: 1767225603990 }, winner, answered_at: 1767225603990 });
    const res = failResponse(answered());
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual(errorBody(answered()));
    // A decoration adds fields but cannot change the error's own.
    const lg = failResponse(answered(), (_b, e) => ({ detail: e.message, error: "overwritten?", ...e.details }));
    expect(await lg.json()).toMatchObject({ detail: "answered by Ada", error: "already_answered", interrupt_id: "i1", winner });
  });

  it("REST, review and LangGraph routes refuse with the same fields", async () => {
    const hub = await testHub();
    const rest = await fetch(`${hub.url}/queues/nope/items?status=closed`);
    const review = await fetch(`${hub.url}/reviews/nope`);
    // Threads are LangGraph API routes (GET /threads/:id is the SDK's threads.get).
    const lgThread = await fetch(`${hub.url}/threads/nope`);
    const lg = await fetch(`${hub.url}/threads/nope/runs/nope`);
    const bodies = [await rest.json(), await review.json(), await lgThread.json(), await lg.json()] as Array<Record<string, unknown>>;
    expect([rest.status, review.status, lgThread.status, lg.status]).toEqual([400, 404, 404, 404]);
    for (const body of bodies) expect(body).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String) }));
    // Nothing but the error reply's fields (no route-specific shape).
    for (const body of bodies.slice(0, 2)) expect(Object.keys(body).filter((k) => !["error", "message", "details"].includes(k))).toEqual([]);
    for (const body of bodies.slice(2)) expect(body).toMatchObject({ detail: body["message"] });
  });
});
