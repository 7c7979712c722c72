/**
 * Stateless runs with the official SDK (`threadId` null): runs.stream and
 * runs.wait run on a thread made for the run, which is gone with its
 * checkpoints and records once the run has ended; `on_completion: "keep"`
 * keeps it. A resume has nothing to resume there.
 */
import { describe, expect, it, vi } from "vitest";
import { REVIEW_DRAFT } from "../../../../hub/index.ts";
import { WAIT } from "../../../support/hub.ts";
import { collect, interruptsIn, lgHub, sdk, tupleText } from "./helpers.ts";

describe("stateless runs", () => {
  it("runs.stream(null, …) streams the run; its thread is deleted after", async () => {
    const hub = await lgHub({ demoTokenDelayMs: 1 });
    const client = await sdk(hub);
    const created: Array<{ run_id: string; thread_id?: string | undefined }> = [];
    const parts = await collect(client.runs.stream(null, "review", { input: { topic: "stateless" }, streamMode: ["values", "messages-tuple", "updates"], onRunCreated: (m) => created.push(m) }));
    expect(parts[0]).toMatchObject({ event: "metadata", data: { run_id: expect.any(String) } });
    expect(created).toEqual([{ run_id: (parts[0]?.data as { run_id: string }).run_id, thread_id: undefined }]);
    expect(tupleText(parts)).toBe(REVIEW_DRAFT);
    expect(interruptsIn(parts.at(-1))).toHaveLength(1);
    // Nothing of it stays: no thread in search, no run record.
    await vi.waitFor(async () => expect(await client.threads.count()).toBe(0), WAIT);
    expect((await hub.stats()).subscriptions).toBe(0);
  });

  it("runs.wait(null, …) returns the final values; on_completion keep leaves the thread; a resume is refused", async () => {
    const hub = await lgHub();
    const client = await sdk(hub);
    const values = await client.runs.wait(null, "parallel-review", { input: {} });
    expect((values as { __interrupt__: unknown[] }).__interrupt__).toHaveLength(3);
    expect(await client.threads.count()).toBe(0);

    // The SDK sends onCompletion for stateless runs too, though its types leave it out there.
    const keep = { input: {}, onCompletion: "keep" } as unknown as { input: Record<string, unknown> };
    await client.runs.wait(null, "parallel-review", keep);
    const [kept] = await client.threads.search();
    expect(kept).toMatchObject({ status: "interrupted", metadata: { graph_id: "parallel-review" } });

    await expect(client.runs.wait(null, "review", { command: { resume: "yes" } })).rejects.toMatchObject({ status: 400 });
    await expect(client.runs.wait(null, "nope", { input: {} })).rejects.toMatchObject({ status: 404 });
    expect(await client.threads.count()).toBe(1);
  });

  it("runs.create(null, …) runs in the background and cleans up when it ends", async () => {
    const hub = await lgHub();
    const client = await sdk(hub);
    const run = await client.runs.create(null, "review", { input: { topic: "background" } });
    expect(run).toMatchObject({ run_id: expect.any(String), assistant_id: "review" });
    await vi.waitFor(async () => expect(await client.threads.count()).toBe(0), WAIT);
  });
});
