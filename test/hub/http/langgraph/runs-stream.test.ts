/**
 * `client.runs.stream` of the official SDK against a real hub: the review
 * demo streamed with values, messages-tuple and updates (tokens live, the
 * interrupt in values and updates, SSE ids, Content-Location), resumed with
 * `command.resume`; parallel-review resumed with a map of its three ids; a
 * REST run seen by a thread-protocol observer and the other way round.
 */
import { describe, expect, it, vi } from "vitest";
import { REVIEW_DRAFT } from "../../../../hub/index.ts";
import { WAIT, onCleanup } from "../../../support/hub.ts";
import { collect, interruptsIn, lgHub, sdk, tupleText, type StreamPart } from "./helpers.ts";

describe("runs.stream", () => {
  it("streams the review demo's tokens live, then its interrupt in updates and values; resume with command.resume", async () => {
    const hub = await lgHub({ demoTokenDelayMs: 3 });
    const client = await sdk(hub);
    const thread = await client.threads.create();
    const created: Array<{ run_id: string; thread_id?: string | undefined }> = [];
    const statusAtFirstToken: string[] = [];
    const parts = await collect(
      client.runs.stream(thread.thread_id, "review", {
        input: { topic: "the hub" },
        streamMode: ["values", "messages-tuple", "updates"],
        onRunCreated: (meta) => created.push(meta),
      }),
      async (part) => {
        // Tokens arrive while the run is still going, not in a batch at its end.
        if (part.event === "messages" && statusAtFirstToken.length === 0) statusAtFirstToken.push((await client.threads.get(thread.thread_id)).status);
      },
    );
    expect(statusAtFirstToken).toEqual(["busy"]);
    const [first] = parts;
    expect(first).toMatchObject({ event: "metadata", data: { run_id: expect.any(String), attempt: 1 } });
    const runId = (first?.data as { run_id: string }).run_id;
    // Content-Location names the run (the SDK's onRunCreated reads it).
    expect(created).toEqual([{ run_id: runId, thread_id: thread.thread_id }]);
    // Every event has an SSE id, and they increase.
    const ids = parts.map((p) => p.id);
    expect(ids.every((id) => id !== undefined)).toBe(true);
    const seqs = ids.map((id) => Number(String(id).split(".")[0]));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));

    expect(tupleText(parts)).toBe(REVIEW_DRAFT);
    const [chunk, metadata] = parts.find((p) => p.event === "messages")?.data as [Record<string, unknown>, Record<string, unknown>];
    expect(chunk).toMatchObject({ type: "AIMessageChunk", id: expect.any(String), content: expect.any(String) });
    expect(metadata).toMatchObject({ langgraph_node: "draft", thread_id: thread.thread_id, run_id: runId, tags: [] });
    expect(parts.filter((p) => p.event === "updates").map((p) => Object.keys(p.data as object))).toEqual([["draft"], ["__interrupt__"]]);
    const asked = interruptsIn(parts.filter((p) => p.event === "updates").at(-1));
    expect(asked).toEqual([{ id: expect.any(String), value: { kind: "review", draft: REVIEW_DRAFT } }]);
    // The stream ends with the interrupt in values, as the LangGraph server sends it.
    expect(parts.at(-1)).toMatchObject({ event: "values", data: { __interrupt__: asked } });
    expect(parts.filter((p) => p.event === "values").at(-2)?.data).toMatchObject({ topic: "the hub", draft: REVIEW_DRAFT });

    expect(await client.threads.get(thread.thread_id)).toMatchObject({ status: "interrupted" });
    const resumed = await collect(client.runs.stream(thread.thread_id, "review", { command: { resume: "ship it" }, streamMode: ["values", "updates"] }));
    expect(resumed.filter((p) => p.event === "updates").map((p) => p.data)).toEqual([{ review: {} }, { finalize: { decision: "ship it", finalize_calls: 1 } }]);
    expect(resumed.at(-1)).toMatchObject({ event: "values", data: { decision: "ship it", finalize_calls: 1 } });
    expect(await client.threads.get(thread.thread_id)).toMatchObject({ status: "idle" });
  });

  it("runs.wait returns the final values; parallel-review resumes once with a map of its three ids", async () => {
    const hub = await lgHub();
    const client = await sdk(hub);
    const thread = await client.threads.create();
    const paused = (await client.runs.wait(thread.thread_id, "parallel-review", { input: {} })) as { __interrupt__: Array<{ id: string; value: { who: string } }> };
    expect(paused.__interrupt__.map((i) => i.value.who).sort()).toEqual(["r1", "r2", "r3"]);
    // A bare value cannot say which of three questions it answers.
    await expect(client.runs.wait(thread.thread_id, "parallel-review", { command: { resume: "yes" } })).rejects.toMatchObject({ status: 400 });
    const resume = Object.fromEntries(paused.__interrupt__.map((i) => [i.id, `ok-${i.value.who}`]));
    const done = await client.runs.wait(thread.thread_id, "parallel-review", { command: { resume } });
    expect(done).toMatchObject({ joined: true });
    expect((done as { answers: Array<{ who: string; answer: string }> }).answers.sort((a, b) => a.who.localeCompare(b.who))).toEqual([
      { who: "r1", answer: "ok-r1" },
      { who: "r2", answer: "ok-r2" },
      { who: "r3", answer: "ok-r3" },
    ]);
    // The first run and exactly one resume.
    expect((await client.runs.list(thread.thread_id)).map((r) => r.status)).toEqual(["success", "interrupted"]);
  });

  it("a REST run is live on the thread stream protocol, and a protocol run joins over REST", async () => {
    const hub = await lgHub({ demoTokenDelayMs: 2 });
    const client = await sdk(hub);
    const thread = await client.threads.create();
    const observer = client.threads.stream(thread.thread_id, { assistantId: "review", transport: "sse" });
    onCleanup(() => observer.close());
    const seen: Array<{ method: string }> = [];
    observer.onEvent((e) => seen.push(e as unknown as { method: string }));
    await observer.subscribe(["lifecycle", "messages", "input"]);
    await collect(client.runs.stream(thread.thread_id, "review", { input: { topic: "both doors" } }));
    await vi.waitFor(() => expect(seen.some((e) => e.method === "input.requested")).toBe(true), WAIT);
    expect(seen.filter((e) => e.method === "messages").length).toBeGreaterThan(40);

    // The other way: answered over the protocol, the resume run is joined over REST.
    await observer.input.respond({ namespace: [], interrupt_id: observer.interrupts[0]!.interruptId, response: "from the socket" });
    const [resumeRun] = await vi.waitFor(async () => {
      const runs = (await client.runs.list(thread.thread_id)).filter((r) => (r as { kwargs?: { input?: unknown } }).kwargs?.input === null);
      if (runs.length === 0) throw new Error("no resume run yet");
      return runs;
    }, WAIT);
    const joined: StreamPart[] = await collect(client.runs.joinStream(thread.thread_id, resumeRun!.run_id, { streamMode: ["updates"] }));
    expect(joined.filter((p) => p.event === "updates").map((p) => p.data)).toEqual([{ review: {} }, { finalize: { decision: "from the socket", finalize_calls: 1 } }]);
    expect(await client.runs.join(thread.thread_id, resumeRun!.run_id)).toMatchObject({ decision: "from the socket", finalize_calls: 1 });
  });
});
