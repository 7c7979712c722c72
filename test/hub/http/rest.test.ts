/**
 * REST reads, metrics, and the SSE stream's wire format (event/id/data lines,
 * heartbeat comments, replay, `since`).
 */
import { createParser } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { decodeEvent, type ProtocolEvent } from "../../../hub/protocol/index.ts";
import { WAIT, onCleanup, testHub } from "../../support/hub.ts";

/**
 * Reads an SSE response into frames and comments as they arrive, with an
 * independent SSE parser (eventsource-parser): the hub's framing is checked
 * against the spec's rules, not against a copy of itself.
 */
function readSse(res: Response) {
  const frames: Array<{ event: string; id: string; data: ProtocolEvent }> = [];
  const comments: string[] = [];
  const invalid: string[] = [];
  const reader = res.body!.getReader();
  onCleanup(() => reader.cancel().catch(() => {}));
  const parser = createParser({
    onComment: (comment) => comments.push(`: ${comment.trimStart()}`),
    onEvent: (message) => {
      const decoded = decodeEvent(message.data);
      if (decoded.ok) frames.push({ event: message.event ?? "", id: message.id ?? "", data: decoded.event });
      else invalid.push(decoded.error.message);
    },
    onError: (error) => invalid.push(error.message),
  });
  void (async () => {
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  })();
  return { frames, comments, invalid };
}

const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("REST", () => {
  it("health, assistants, threads, state, history, metrics", async () => {
    const hub = await testHub();
    expect(await (await fetch(`${hub.url}/health`)).json()).toMatchObject({ ok: true, auth: "open" });
    const assistants = (await (await fetch(`${hub.url}/assistants`)).json()) as Array<{ assistant_id: string }>;
    expect(assistants.map((a) => a.assistant_id)).toEqual(["review", "parallel-review", "expense-approval"]);

    const created = (await (await post(`${hub.url}/threads`, { metadata: { team: "qa" } })).json()) as { thread_id: string };
    expect(created).toMatchObject({ status: "idle", metadata: { team: "qa" } });
    const id = created.thread_id;
    const start = await post(`${hub.url}/threads/${id}/commands`, { id: 1, method: "run.start", params: { assistant_id: "parallel-review", input: {} } });
    expect(await start.json()).toMatchObject({ type: "success" });
    await expect.poll(async () => ((await (await fetch(`${hub.url}/threads/${id}`)).json()) as { status: string }).status, WAIT).toBe("interrupted");

    // LangGraph's Thread: pending interrupts keyed by the id of the task that raised them.
    const thread = (await (await fetch(`${hub.url}/threads/${id}`)).json()) as { interrupts: Record<string, unknown[]> };
    expect(thread).toMatchObject({ assistant_id: "parallel-review", metadata: { team: "qa", graph_id: "parallel-review" } });
    expect(Object.values(thread.interrupts).flat()).toHaveLength(3);
    const state = await (await fetch(`${hub.url}/threads/${id}/state`)).json();
    expect(state).toMatchObject({ next: expect.arrayContaining(["r1", "r2", "r3"]), checkpoint: { checkpoint_id: expect.any(String) } });
    const history = (await (await fetch(`${hub.url}/threads/${id}/history?limit=2`)).json()) as unknown[];
    expect(history).toHaveLength(2);
    expect((await fetch(`${hub.url}/threads/nope`)).status).toBe(404);

    const metrics = await (await fetch(`${hub.url}/metrics`)).text();
    expect(metrics).toMatch(/switchboard_events_total \d+/);
    expect(metrics).toContain('switchboard_runs{status="interrupted"} 1');
    expect(metrics).toContain("switchboard_connections 0");
  });

  it("SSE: replay then live frames with event/id/data lines and heartbeat comments; since replays exactly", async () => {
    const hub = await testHub({ limits: { sseHeartbeatMs: 20 } });
    const url = `${hub.url}/threads/t-sse/stream/events`;
    await post(`${hub.url}/threads/t-sse/commands`, { id: 1, method: "run.start", params: { assistant_id: "review", input: { topic: "sse" } } });

    const res = await post(url, { channels: ["lifecycle", "input", "values", "messages"] });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const stream = readSse(res);
    await expect.poll(() => stream.frames.some((f) => f.event === "lifecycle" && f.data.params.namespace.length === 0 && (f.data.params.data as { event?: string }).event === "interrupted"), WAIT).toBe(true);
    await expect.poll(() => stream.comments.filter((c) => c === ": heartbeat").length, WAIT).toBeGreaterThan(2);
    for (const frame of stream.frames) {
      expect(frame.id).toBe(String(frame.data.seq));
      expect(frame.event).toBe(frame.data.method);
    }
    const seqs = stream.frames.map((f) => f.data.seq ?? 0);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(stream.invalid).toEqual([]);

    const cut = seqs[Math.floor(seqs.length / 2)] ?? 0;
    const resumed = readSse(await post(url, { channels: ["lifecycle", "input", "values", "messages"], since: cut }));
    await expect.poll(() => resumed.frames.length, WAIT).toBe(seqs.filter((s) => s > cut).length);
    expect(resumed.frames.map((f) => f.data.seq)).toEqual(seqs.filter((s) => s > cut));

    const byHeader = readSse(await fetch(url, { method: "POST", headers: { "content-type": "application/json", "last-event-id": String(cut) }, body: JSON.stringify({ channels: ["lifecycle", "input", "values", "messages"] }) }));
    await expect.poll(() => byHeader.frames.map((f) => f.data.seq), WAIT).toEqual(seqs.filter((s) => s > cut));

    expect((await post(url, { channels: ["nope"] })).status).toBe(400);
    // The protocol text's path is served too.
    const alias = readSse(await post(`${hub.url}/threads/t-sse/stream`, { channels: ["lifecycle"] }));
    await expect.poll(() => alias.frames.some((f) => f.event === "lifecycle"), WAIT).toBe(true);
  });
});
