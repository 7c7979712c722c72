/**
 * Review workflows over real sockets (issue 18): a 2-of-3 quorum voted from
 * three sockets at once resumes the run once; a second vote is already_voted;
 * stages; answers bound to the payload digest (stale after an edit of the
 * thread's state); reassignment and delegation seen live by the new queue's
 * reviewers. The store rules themselves run on every backend in
 * test/hub/storage/conformance/review-store-workflows.ts.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import type { ProtocolEvent, ProtocolResponse } from "../../../../hub/protocol/index.ts";
import { END, START, StateGraph, interrupt, lastValue, reducer, type Checkpointer } from "../../../../engine/index.ts";
import type { Assistant } from "../../../../hub/index.ts";
import { OPERATOR, REVIEWER, WAIT, authHeaders, createThread, isRootLifecycle, ok, openAs, reviewHub, startAndWait, testAssistants, type Calls } from "./helpers.ts";

/** Two parallel questions whose payloads show the state's `note`, then join. */
function twoQuestions(checkpointer: Checkpointer): Assistant {
  let graph = new StateGraph({ note: lastValue<string>(), answers: reducer((all: string[], more: string[]) => [...all, ...more], () => []) });
  for (const who of ["a", "b"]) {
    graph = graph.addNode(who, (state) => ({ answers: [`${who}=${String(interrupt<unknown>({ who, note: state.note }))}`] })).addEdge(START, who);
  }
  const compiled = graph.addNode("join", () => ({})).addEdge(["a", "b"], "join").addEdge("join", END).compile({ checkpointer, name: "two-questions" });
  return { id: "two-questions", description: "Two questions that show the note.", graph: compiled };
}

const doc = readFileSync(fileURLToPath(new URL("../../../../docs/PROTOCOL.md", import.meta.url)), "utf8");
const documented = [...doc.matchAll(/```json protocol-event\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] ?? "{}") as ProtocolEvent);
const keys = (value: unknown): string[] => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object.keys(value).sort() : []);

/** The documented example of `method` shows the data fields the hub always sends, and only fields it sends. */
function expectDocumented(method: string, real: ProtocolEvent[]): void {
  const examples = documented.filter((e) => e.method === method);
  expect(examples.length, `an example of ${method} in PROTOCOL.md`).toBeGreaterThan(0);
  expect(real.length).toBeGreaterThan(0);
  const sent = new Set(real.flatMap((e) => keys(e.params.data)));
  const always = keys(real[0]!.params.data).filter((k) => real.every((e) => keys(e.params.data).includes(k)));
  for (const example of examples) {
    const shown = keys(example.params.data);
    for (const k of shown) expect(sent.has(k), `${method}: the example shows "${k}", the hub never sends it`).toBe(true);
    for (const k of always) expect(shown, `${method}: the hub always sends "${k}"`).toContain(k);
  }
}

const errorOf = (response: ProtocolResponse) => (response.type === "error" ? response : undefined);
const votedOf = (events: ProtocolEvent[]) => events.filter((e): e is Extract<ProtocolEvent, { method: "input.voted" }> => e.method === "input.voted");

async function restItem(hub: { url: string }, id: string, sub = "audit", roles = ["observer"]) {
  const res = await fetch(`${hub.url}/reviews/${id}`, { headers: await authHeaders(sub, roles) });
  return (await res.json()) as Record<string, unknown> & { payload_digest: string; revision: number; status: string; quorum?: { progress: Record<string, unknown> } };
}

describe("review workflows over real sockets", () => {
  it("a 2-of-3 quorum voted from three sockets at once: two votes count, the run resumes once with the deciding vote", async () => {
    const calls: Calls = {};
    const hub = await reviewHub({}, calls);
    const review = { users: ["alice", "bob", "carol"], quorum: { mode: "k_of_n", k: 2 } };
    const { operator, ids: [id] } = await startAndWait(hub, "w-quorum", "gate", { review });
    const requested = operator.events.find((e) => e.method === "input.requested");
    const item = await restItem(hub, id!);
    expect(requested?.params.data).toMatchObject({ interrupt_id: id, payload_digest: item.payload_digest });
    expect(item).toMatchObject({ revision: 0, quorum: { rule: { mode: "k_of_n", k: 2, reject_ends: true }, progress: { approved: 0, required: 2 } }, votes: [] });

    const sockets = await Promise.all(["alice", "bob", "carol"].map((sub) => openAs(hub, sub, REVIEWER)));
    const replies = await Promise.all(
      sockets.map((s, i) => s.request("input.respond", { namespace: [], interrupt_id: id, response: { approved: true, by: i }, payload_digest: item.payload_digest }, { thread_id: "w-quorum" })),
    );
    const accepted = replies.filter((r) => r.type === "success");
    expect(accepted).toHaveLength(2);
    const refused = replies.filter((r) => r.type === "error");
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ error: "already_answered" });
    const results = accepted.map((r) => ok(r));
    expect(results.map((r) => r["resumed"]).sort()).toEqual([false, true]);
    expect(results.flatMap((r) => (r["votes"] as Array<{ outcome: string }>).map((v) => v.outcome)).sort()).toEqual(["approved", "pending"]);

    await operator.waitForEvent(isRootLifecycle("completed"));
    expect(calls["done"]).toBe(1);
    await vi.waitFor(() => expect(votedOf(operator.events)).toHaveLength(2), WAIT);
    const answered = operator.events.filter((e) => e.method === "input.answered");
    expect(answered).toHaveLength(1);
    const votes = votedOf(operator.events);
    expect(votes.map((v) => v.params.data.progress.approved)).toEqual([1, 2]);
    expect(votes[1]!.params.data).toMatchObject({ interrupt_id: id, verdict: "approve", outcome: "approved", progress: { required: 2, stage: 0, stages: 1, stage_name: null } });
    // The decider's value is the resume value; the one answered_by is the second voter.
    const final = await restItem(hub, id!);
    const decider = votes[1]!.params.data.by;
    expect(final).toMatchObject({ status: "answered", answer: { answered_by: decider }, quorum: { progress: { approved: 2, approvers: votes.map((v) => v.params.data.by.name) } } });
    expect(answered[0]).toMatchObject({ params: { data: { answered_by: decider } } });
    const state = (await (await fetch(`${hub.url}/threads/w-quorum/state`, { headers: await authHeaders("olive", OPERATOR) })).json()) as { values: Record<string, unknown> };
    expect(state.values).toMatchObject({ done_calls: 1, answer: (final["answer"] as { response: unknown }).response });
    expectDocumented("input.voted", votes);
    for (const s of sockets) s.expectValidFrames();
  });

  it("each candidate votes once (already_voted over WS and POST /commands); progress names the approvers", async () => {
    const hub = await reviewHub();
    const { operator, ids: [id] } = await startAndWait(hub, "w-once", "gate", { review: { users: ["alice", "bob", "carol"], quorum: { mode: "all" } } });
    const alice = await openAs(hub, "alice", REVIEWER);
    const first = ok(await alice.request("input.respond", { namespace: [], interrupt_id: id, response: "yes" }, { thread_id: "w-once" }));
    expect(first).toMatchObject({ interrupt_ids: [id], resumed: false, votes: [{ interrupt_id: id, verdict: "approve", outcome: "pending", progress: { approved: 1, required: 3, approvers: ["alice (token)"] } }] });
    expect(first["answered_at"]).toBeUndefined();
    const again = errorOf(await alice.request("input.respond", { namespace: [], interrupt_id: id, response: "yes again" }, { thread_id: "w-once" }));
    expect(again).toMatchObject({ error: "already_voted", details: { interrupt_id: id, verdict: "approve", voted_at: expect.any(Number) } });
    const viaRest = await fetch(`${hub.url}/threads/w-once/commands`, {
      method: "POST",
      headers: { ...(await authHeaders("alice", REVIEWER)), "content-type": "application/json" },
      body: JSON.stringify({ id: 1, method: "input.respond", params: { namespace: [], interrupt_id: id, response: "and again" } }),
    });
    // Errors are 200 JSON on this route (PROTOCOL.md); the code is the WebSocket's.
    expect(await viaRest.json()).toMatchObject({ type: "error", error: "already_voted" });
    const bob = await openAs(hub, "bob", REVIEWER);
    ok(await bob.request("input.respond", { namespace: [], interrupt_id: id, response: false }, { thread_id: "w-once" }));
    // rejectEnds (default): bob's reject decided it; the run resumed with `false`.
    await operator.waitForEvent(isRootLifecycle("completed"));
    expect(await restItem(hub, id!)).toMatchObject({ status: "answered", answer: { response: false, answered_by: { sub: "bob" } } });
    const carol = await openAs(hub, "carol", REVIEWER);
    expect(errorOf(await carol.request("input.respond", { namespace: [], interrupt_id: id, response: "late" }, { thread_id: "w-once" }))).toMatchObject({ error: "already_answered", winner: { sub: "bob" } });
  });

  it("stages: the manager's queue sees the item only once the first stage approved it", async () => {
    const calls: Calls = {};
    const hub = await reviewHub({}, calls);
    const manager = await openAs(hub, "mona", ["reviewer", "manager"]);
    ok(await manager.request("queue.subscribe", { queue: "default" }));
    const stages = [{ name: "review", users: ["alice"] }, { name: "manager", roles: ["manager"] }];
    const { operator, ids: [id] } = await startAndWait(hub, "w-stages", "gate", { review: { stages } });
    expect(errorOf(await manager.request("input.respond", { namespace: [], interrupt_id: id, response: "approve" }, { thread_id: "w-stages" }))).toMatchObject({ error: "permission_denied" });
    expect(manager.events.some((e) => e.method === "input.requested")).toBe(false);
    const alice = await openAs(hub, "alice", REVIEWER);
    const staged = ok(await alice.request("input.respond", { namespace: [], interrupt_id: id, response: "approve" }, { thread_id: "w-stages" }));
    expect(staged).toMatchObject({ resumed: false, votes: [{ outcome: "stage_approved", progress: { stage: 0, stages: 2, stage_name: "review" } }] });
    // Now the item is the manager's: it appears live in their queue.
    await manager.waitForEvent((e) => e.method === "input.requested" && e.params.data.interrupt_id === id, "the item in the manager's queue");
    const done = ok(await manager.request("input.respond", { namespace: [], interrupt_id: id, response: { type: "approve" } }, { thread_id: "w-stages" }));
    expect(done).toMatchObject({ resumed: true, votes: [{ outcome: "approved", progress: { stage: 1, stage_name: "manager", approvers: ["mona (token)"] } }] });
    await operator.waitForEvent(isRootLifecycle("completed"));
    expect(calls["done"]).toBe(1);
  });

  it("payload_digest: a stale one is refused (WS, REST) and the item stays open; the current one is accepted", async () => {
    const hub = await reviewHub();
    const { operator, ids: [id] } = await startAndWait(hub, "w-digest", "gate", { review: { users: ["alice"] } });
    const before = await restItem(hub, id!);
    const alice = await openAs(hub, "alice", REVIEWER);
    const wrong = "f".repeat(64);
    const refused = errorOf(await alice.request("input.respond", { namespace: [], interrupt_id: id, response: "ok", payload_digest: wrong }, { thread_id: "w-digest" }));
    expect(refused).toMatchObject({ error: "stale_payload", details: { interrupt_id: id } });
    expect(errorOf(await alice.request("input.respond", { namespace: [], interrupt_id: id, response: "ok", payload_digest: "not-hex" }, { thread_id: "w-digest" }))).toMatchObject({ error: "invalid_argument" });
    const rest = await fetch(`${hub.url}/reviews/${id}/answer`, {
      method: "POST",
      headers: { ...(await authHeaders("alice", REVIEWER)), "content-type": "application/json" },
      body: JSON.stringify({ response: "ok", payload_digest: wrong }),
    });
    expect(rest.status).toBe(409);
    expect(await rest.json()).toMatchObject({ error: "stale_payload" });
    expect(await restItem(hub, id!)).toMatchObject({ status: "open", payload_digest: before.payload_digest });

    ok(await alice.request("input.respond", { namespace: [], interrupt_id: id, response: "ok", payload_digest: before.payload_digest }, { thread_id: "w-digest" }));
    await operator.waitForEvent(isRootLifecycle("completed"));
  });

  it("payload_digest: an answer that edits the state makes the sibling question a new revision — its old digest is stale, queues get the new one", async () => {
    const hub = await reviewHub({ assistants: (checkpointer) => [...testAssistants({})(checkpointer), twoQuestions(checkpointer)] });
    const bob = await openAs(hub, "bob", REVIEWER);
    ok(await bob.request("queue.subscribe", { queue: "default" }));
    const { operator, ids } = await startAndWait(hub, "w-edit", "two-questions", { note: "v1" }, { expected: 2 });
    const items = await Promise.all(ids.map((i) => restItem(hub, i)));
    const [a, b] = [items.find((i) => (i.payload as { who: string }).who === "a")!, items.find((i) => (i.payload as { who: string }).who === "b")!];
    expect(b).toMatchObject({ revision: 0, status: "open" });
    const alice = await openAs(hub, "alice", REVIEWER);
    // Alice answers a and edits the state the run resumes into (batch: b still waits).
    ok(await alice.request("input.respond", { namespace: [], interrupt_id: a.interrupt_id, response: "yes", update: { note: "v2" } }, { thread_id: "w-edit" }));
    const now = await restItem(hub, b.interrupt_id as string);
    expect(now).toMatchObject({ status: "open", revision: 1 });
    expect(now.payload_digest).not.toBe(b.payload_digest);
    expect((now["audit"] as Array<{ kind: string; reason?: string }>).filter((e) => e.kind === "revised")).toEqual([expect.objectContaining({ reason: "state_updated" })]);
    // bob's queue holds the item with the new digest.
    await bob.waitForEvent((e) => e.method === "input.requested" && e.params.data.interrupt_id === b.interrupt_id && (e.params.data as { payload_digest?: string }).payload_digest === now.payload_digest, "the revised item in bob's queue");
    const stale = errorOf(await bob.request("input.respond", { namespace: [], interrupt_id: b.interrupt_id, response: "yes", payload_digest: b.payload_digest }, { thread_id: "w-edit" }));
    expect(stale).toMatchObject({ error: "stale_payload" });
    expect(await restItem(hub, b.interrupt_id as string)).toMatchObject({ status: "open" });
    ok(await bob.request("input.respond", { namespace: [], interrupt_id: b.interrupt_id, response: "yes", payload_digest: now.payload_digest }, { thread_id: "w-edit" }));
    await operator.waitForEvent(isRootLifecycle("completed"));
  });

  it("an edit of the state through the LangGraph API moves the thread past the question: the item is withdrawn, any digest refused", async () => {
    const hub = await reviewHub();
    const { ids: [id] } = await startAndWait(hub, "w-lg-edit", "gate", { review: { users: ["alice"] } });
    const before = await restItem(hub, id!);
    const edit = await fetch(`${hub.url}/threads/w-lg-edit/state`, {
      method: "POST",
      headers: { ...(await authHeaders("olive", OPERATOR)), "content-type": "application/json" },
      body: JSON.stringify({ values: { review: { users: ["alice"], note: "edited" } } }),
    });
    expect(edit.status).toBe(200);
    // This engine's update writes a new checkpoint without the pending question (the re-planned task asks anew when run).
    expect(await restItem(hub, id!)).toMatchObject({ status: "cancelled" });
    const alice = await openAs(hub, "alice", REVIEWER);
    expect(errorOf(await alice.request("input.respond", { namespace: [], interrupt_id: id, response: "ok", payload_digest: before.payload_digest }, { thread_id: "w-lg-edit" }))).toMatchObject({ error: "interrupt_cancelled" });
  });

  it("reassign: the new queue's reviewer, subscribed before, sees it arrive; the old queue's sees it leave; delegation over POST /commands and REST", async () => {
    const calls: Calls = {};
    const hub = await reviewHub({}, calls);
    const bob = await openAs(hub, "bob", REVIEWER);
    ok(await bob.request("queue.subscribe", { queue: "legal" }));
    const alice = await openAs(hub, "alice", REVIEWER);
    ok(await alice.request("queue.subscribe", { queue: "support" }));
    const { operator, ids: [id] } = await startAndWait(hub, "w-move", "gate", { review: { queue: "support", users: ["alice"] } });
    await alice.waitForEvent((e) => e.method === "input.requested" && e.params.data.interrupt_id === id);
    expect(bob.events.some((e) => e.method === "input.requested")).toBe(false);

    // A candidate may not move it to a queue; an override role may.
    expect(errorOf(await alice.request("input.reassign", { interrupt_id: id, queue: "legal" }, { thread_id: "w-move" }))).toMatchObject({ error: "permission_denied" });
    const rita = await openAs(hub, "rita", ["reviewer", "review-admin"]);
    const moved = ok(await rita.request("input.reassign", { interrupt_id: id, queue: "legal", users: ["bob", "dave"], reason: "needs a lawyer" }, { thread_id: "w-move" }));
    expect(moved).toMatchObject({ interrupt_id: id, queue: "legal", users: ["bob", "dave"], roles: [] });
    const arrived = await bob.waitForEvent((e) => e.method === "input.requested" && e.params.data.interrupt_id === id, "the item in bob's queue");
    expect(arrived).toMatchObject({ queue: "legal", review: { queue: "legal", users: ["bob", "dave"] } });
    const seen = await bob.waitForEvent((e) => e.method === "input.reassigned");
    expect(seen.params.data).toEqual({ interrupt_id: id, by: { sub: "rita", name: "rita (token)" }, from: { queue: "support", users: ["alice"], roles: [] }, to: { queue: "legal", users: ["bob", "dave"], roles: [] }, delegated: false, reason: "needs a lawyer" });
    const left = await alice.waitForEvent((e) => e.method === "input.reassigned", "the old queue told it left");
    expect(left).toMatchObject({ queue: "support", params: { data: { interrupt_id: id, to: { queue: "legal" } } } });
    await operator.waitForEvent((e) => e.method === "input.reassigned");
    expect(errorOf(await alice.request("input.respond", { namespace: [], interrupt_id: id, response: "mine" }, { thread_id: "w-move" }))).toMatchObject({ error: "permission_denied" });

    // bob delegates his place to erin over POST /commands; erin's queue subscription sees it.
    const erin = await openAs(hub, "erin", REVIEWER);
    ok(await erin.request("queue.subscribe", { queue: "legal" }));
    const delegate = await fetch(`${hub.url}/threads/w-move/commands`, {
      method: "POST",
      headers: { ...(await authHeaders("bob", REVIEWER)), "content-type": "application/json" },
      body: JSON.stringify({ id: 1, method: "input.reassign", params: { interrupt_id: id, users: ["erin"], reason: "on leave" } }),
    });
    expect(await delegate.json()).toMatchObject({ type: "success", result: { interrupt_id: id, users: ["dave", "erin"] } });
    await erin.waitForEvent((e) => e.method === "input.requested" && e.params.data.interrupt_id === id, "the delegated item in erin's queue");
    const delegated = await erin.waitForEvent((e) => e.method === "input.reassigned");
    expect(delegated.params.data).toMatchObject({ delegated: true, from: { users: ["bob", "dave"] }, to: { users: ["dave", "erin"] }, reason: "on leave" });
    await bob.waitForEvent((e) => e.method === "input.reassigned" && e.params.data.delegated === true, "bob sees his place go");

    // REST: a reviewer without an override role may not reassign to roles.
    const rest = await fetch(`${hub.url}/reviews/${id}/reassign`, {
      method: "POST",
      headers: { ...(await authHeaders("erin", REVIEWER)), "content-type": "application/json" },
      body: JSON.stringify({ roles: ["legal"] }),
    });
    expect(rest.status).toBe(403);
    const audit = ((await restItem(hub, id!))["audit"] as Array<{ kind: string; by?: { sub: string } }>).filter((e) => e.kind === "reassigned");
    expect(audit.map((e) => e.by?.sub)).toEqual(["rita", "bob"]);

    ok(await erin.request("input.respond", { namespace: [], interrupt_id: id, response: "done by erin" }, { thread_id: "w-move" }));
    await operator.waitForEvent(isRootLifecycle("completed"));
    expect(calls["done"]).toBe(1);
    expectDocumented("input.reassigned", [seen, left, delegated]);
    for (const s of [alice, bob, erin, rita]) s.expectValidFrames();
  });

  it("a thread subscriber who is a new candidate sees the reassignment on the thread too", async () => {
    const hub = await reviewHub();
    await createThread(hub, "w-thread");
    const dave = await openAs(hub, "dave", REVIEWER);
    await dave.subscribe({ channels: ["input"] }, { thread_id: "w-thread" });
    const { ids: [id] } = await startAndWait(hub, "w-thread", "gate", { review: { users: ["alice"] } });
    const root = await openAs(hub, "root", ["admin"]);
    ok(await root.request("input.reassign", { interrupt_id: id, users: ["dave"] }, { thread_id: "w-thread" }));
    const seen = await dave.waitForEvent((e) => e.method === "input.reassigned");
    expect(seen.seq).toEqual(expect.any(Number));
    ok(await dave.request("input.respond", { namespace: [], interrupt_id: id, response: "ok" }, { thread_id: "w-thread" }));
  });
});
