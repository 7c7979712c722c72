/**
 * `command.resume` over REST is an answer like `input.respond`: it goes
 * through review routing (roles, self-approval), races first-authorized-
 * answer-wins — two SDK clients resuming one interrupt at once get one
 * success and one 409 naming the winner — is broadcast as `input.answered`,
 * and the graph resumes once. The SDK's `apiKey` (x-api-key) authenticates.
 */
import { describe, expect, it, vi } from "vitest";
import { WAIT, onCleanup } from "../../../support/hub.ts";
import { EVERYTHING, OPERATOR, REVIEWER, SECRET, lgHub, sdk } from "./helpers.ts";

/** The JSON body of an SDK HTTPError. */
function bodyOf(error: unknown): Record<string, unknown> {
  const text = (error as { text?: unknown }).text;
  return typeof text === "string" ? (JSON.parse(text) as Record<string, unknown>) : {};
}

describe("command.resume races through review routing", () => {
  it("two SDK clients resume the same interrupt at once: one wins, the other gets 409 with the winner; the graph resumes once", async () => {
    const hub = await lgHub({ jwtSecret: SECRET, demoTokenDelayMs: 0 });
    const operator = await sdk(hub, "olga", OPERATOR);
    const ann = await sdk(hub, "ann", REVIEWER);
    const bob = await sdk(hub, "bob", REVIEWER);
    const thread = await operator.threads.create();
    const paused = (await operator.runs.wait(thread.thread_id, "review", { input: { topic: "races" } })) as { __interrupt__: Array<{ id: string }> };
    const [asked] = paused.__interrupt__;

    // A protocol observer hears who answered.
    const observer = operator.threads.stream(thread.thread_id, { assistantId: "review", transport: "sse" });
    onCleanup(() => observer.close());
    const answered: Array<{ method: string; params: { data: Record<string, unknown> } }> = [];
    observer.onEvent((e) => {
      const event = e as unknown as { method: string; params: { data: Record<string, unknown> } };
      if (event.method === "input.answered") answered.push(event);
    });
    await observer.subscribe(["input", "lifecycle"]);

    const results = await Promise.allSettled([
      ann.runs.wait(thread.thread_id, "review", { command: { resume: "ann says yes" } }),
      bob.runs.wait(thread.thread_id, "review", { command: { resume: { [asked!.id]: "bob says no" } } }),
    ]);
    const won = results.findIndex((r) => r.status === "fulfilled");
    const lost = results.find((r) => r.status === "rejected");
    expect(won).not.toBe(-1);
    const winner = won === 0 ? { sub: "ann", name: "ann (token)" } : { sub: "bob", name: "bob (token)" };
    const decision = won === 0 ? "ann says yes" : "bob says no";
    expect(results[won]).toMatchObject({ status: "fulfilled", value: { decision, finalize_calls: 1 } });
    expect(lost?.status === "rejected" ? lost.reason : undefined).toMatchObject({ status: 409 });
    const refusal = bodyOf(lost?.status === "rejected" ? lost.reason : undefined);
    expect(refusal).toMatchObject({ error: "already_answered", interrupt_id: asked!.id, winner, answered_by: winner, answered_at: expect.any(Number), detail: expect.any(String) });

    // One resume, one input.answered naming the winner.
    expect((await operator.runs.list(thread.thread_id)).map((r) => r.status)).toEqual(["success", "interrupted"]);
    await vi.waitFor(() => expect(answered).toHaveLength(1), WAIT);
    expect(answered[0]?.params.data).toMatchObject({ interrupt_ids: [asked!.id], answered_by: winner });
    expect((await operator.threads.getState(thread.thread_id)).values).toMatchObject({ decision, finalize_calls: 1 });
  });

  it("no REST route answers around routing: roles and self-approval apply, and a missing key is a 401", async () => {
    const hub = await lgHub({ jwtSecret: SECRET, demoTokenDelayMs: 0 });
    const olga = await sdk(hub, "olga", EVERYTHING);
    const viewer = await sdk(hub, "vic", ["observer"]);
    const thread = await olga.threads.create();
    await olga.runs.wait(thread.thread_id, "review", { input: { topic: "self" } });

    // The run's starter may not approve it (the hub's default routing), nor may an observer answer.
    const self = await olga.runs.wait(thread.thread_id, "review", { command: { resume: "mine" } }).catch((e: unknown) => e);
    expect(self).toMatchObject({ status: 403 });
    expect(bodyOf(self)).toMatchObject({ error: "permission_denied" });
    await expect(viewer.runs.create(thread.thread_id, "review", { command: { resume: "x" } })).rejects.toMatchObject({ status: 403 });
    expect(await olga.threads.get(thread.thread_id)).toMatchObject({ status: "interrupted" });

    const anonymous = await sdk(hub);
    await expect(anonymous.threads.get(thread.thread_id)).rejects.toMatchObject({ status: 401 });
    // Another tenant does not see the thread at all.
    const stranger = await sdk(hub, "sam", EVERYTHING, "globex");
    await expect(stranger.threads.get(thread.thread_id)).rejects.toMatchObject({ status: 404 });
    await expect(stranger.runs.create(thread.thread_id, "review", { command: { resume: "x" } })).rejects.toMatchObject({ status: 404 });
  });
});
