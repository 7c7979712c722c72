/**
 * The baseline of a thread whose log is (re)created while it already has
 * state (the hub restarted, or its log was evicted): its values, pending
 * questions and a root terminal lifecycle event, read from the checkpoint.
 */
import type { LifecycleData, ProtocolEvent } from "../protocol/index.ts";
import type { ThreadSeed } from "../threads/index.ts";
import type { AssistantRegistry } from "./assistants.ts";
import type { HubStore, ThreadRecord } from "./store.ts";

export interface SeedSources {
  assistants: AssistantRegistry;
  store: HubStore;
  /** Where a pending interrupt was first asked (see RunManagerOptions.originOf). */
  originOf?: ((threadId: string, interruptId: string) => Promise<{ namespace: readonly string[]; node: string | null; payloadDigest?: string } | undefined>) | undefined;
}

export async function seedOf(thread: ThreadRecord, o: SeedSources): Promise<ThreadSeed | null> {
  if (thread.assistantId === null) return null;
  const assistant = o.assistants.get(thread.assistantId);
  if (!assistant) return null;
  const state = await assistant.graph.getState(thread.threadId);
  const [last] = await o.store.listRuns(thread.threadId, { limit: 1 });
  // No checkpoint, but an earlier process may have published events (its run failed
  // before saving anything): an empty seed still moves the seqs past that process's.
  if (state.config === undefined) return last === undefined ? null : { events: [], runId: null };
  const runId = last?.runId ?? null;
  const head = { type: "event" as const, thread_id: thread.threadId, ...(runId === null ? {} : { run_id: runId }) };
  const params = <D>(data: D) => ({ namespace: [], timestamp: Date.now(), data });
  const events: ProtocolEvent[] = [{ ...head, method: "values", params: params(state.values) }];
  for (const i of state.interrupts) {
    const origin = await o.originOf?.(thread.threadId, i.id);
    // Without a record, the root task that holds it: exact for a root node, the subgraph's node otherwise.
    const node = origin ? origin.node : (state.tasks.find((t) => t.interrupts.some((x) => x.id === i.id))?.name ?? null);
    // The review item's digest, as when the question was first published.
    const data = { interrupt_id: i.id, payload: i.value, ...(origin?.payloadDigest === undefined ? {} : { payload_digest: origin.payloadDigest }) };
    const asked = { ...params(data), namespace: [...(origin?.namespace ?? [])], ...(node === null ? {} : { node }) };
    events.push({ ...head, method: "input.requested", params: asked });
  }
  // A root terminal event, so an SDK observer's `thread.output` settles.
  const end: LifecycleData =
    state.interrupts.length > 0
      ? { event: "interrupted", graph_name: assistant.id }
      : state.next.length === 0
        ? { event: "completed", graph_name: assistant.id }
        : { event: "failed", graph_name: assistant.id, error: "the last run stopped before the end; run.start with input null continues it" };
  events.push({ ...head, method: "lifecycle", params: params(end) });
  return { events, runId };
}
