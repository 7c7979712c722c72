/** The state API over checkpoints: snapshots for getState/history, and updateState. */
import { newCheckpointId } from "../checkpoint/ids.ts";
import type { Checkpointer, CheckpointConfig, CheckpointMetadata, CheckpointTuple } from "../checkpoint/types.ts";
import { INTERRUPT, NULL_TASK_ID, PULL, START } from "../constants.ts";
import { AmbiguousUpdateError, CheckpointNotFoundError, InvalidUpdateError } from "../errors.ts";
import type { Interrupt } from "../types.ts";
import { applyCommandWrites, applyWrites, planTasks, readValues, restoreChannels, snapshotChannels } from "./algo.ts";
import type { RuntimeGraph } from "./graph.ts";
import { groupPendingWrites, pendingInterruptsOf } from "./pending.ts";
import { nodeWrites, updatePayload } from "./writes.ts";

export interface SnapshotTask {
  id: string;
  name: string;
  path: Array<string | number>;
  /** The error message if the task failed, else null. */
  error: string | null;
  /** Interrupts the task raised (kept in history after they are answered). */
  interrupts: Interrupt[];
  /** The task's state update once it finished, else null. */
  result: Record<string, unknown> | null;
}

export interface StateSnapshot {
  values: Record<string, unknown>;
  /** Nodes planned from this checkpoint. */
  next: string[];
  tasks: SnapshotTask[];
  /** Interrupts still waiting for an answer at this checkpoint. */
  interrupts: Interrupt[];
  config: Required<CheckpointConfig> | undefined;
  metadata: CheckpointMetadata | undefined;
  createdAt: string | undefined;
  parentConfig: Required<CheckpointConfig> | undefined;
}

export function snapshotOf(graph: RuntimeGraph, tuple: CheckpointTuple | undefined): StateSnapshot {
  if (!tuple) {
    return { values: {}, next: [], tasks: [], interrupts: [], config: undefined, metadata: undefined, createdAt: undefined, parentConfig: undefined };
  }
  const channels = restoreChannels(graph.specs, tuple.checkpoint.channelValues);
  const records = groupPendingWrites(tuple.pendingWrites);
  // A resume's update and goto apply before its step runs (loop.ts): shown the same way.
  const versions = { channelVersions: { ...tuple.checkpoint.channelVersions }, versionsSeen: tuple.checkpoint.versionsSeen };
  applyCommandWrites(versions, channels, records.get(NULL_TASK_ID)?.writes);
  const planned = planTasks({ ...versions, id: tuple.checkpoint.id }, channels, graph.planNodes, tuple.metadata.step + 1, tuple.config.checkpointNs);
  const tasks: SnapshotTask[] = planned.map((t) => {
    const record = records.get(t.id);
    return {
      id: t.id,
      name: t.name,
      path: [...t.path],
      error: record?.error ?? null,
      interrupts: record?.interrupts ?? [],
      result: record?.done ? (updatePayload(record.writes, graph.publicKeys) ?? {}) : null,
    };
  });
  const interrupts = planned.flatMap((t) => {
    const record = records.get(t.id);
    return record ? pendingInterruptsOf(record) : [];
  });
  return {
    values: readValues(channels, graph.publicKeyList),
    next: [...new Set(planned.map((t) => t.name))],
    tasks,
    interrupts,
    config: tuple.config,
    metadata: tuple.metadata,
    createdAt: tuple.checkpoint.ts,
    parentConfig: tuple.parentConfig,
  };
}

/**
 * The node that ran last: the one that has seen the newest version (versions
 * count for the whole checkpoint). `candidates` when several nodes share it
 * (parallel nodes in the last step) — then it cannot be told.
 */
function lastNode(graph: RuntimeGraph, versionsSeen: Record<string, Record<string, number>>): { node: string } | { candidates: string[] } {
  let newest = -1;
  let nodes: string[] = [];
  for (const [node, seen] of Object.entries(versionsSeen)) {
    if (node === INTERRUPT || !graph.nodes.has(node)) continue;
    const version = Math.max(0, ...Object.values(seen));
    if (version > newest) [newest, nodes] = [version, [node]];
    else if (version === newest) nodes.push(node);
  }
  if (nodes.length === 1) return { node: nodes[0] as string };
  return { candidates: nodes.sort() };
}

export async function updateThreadState(
  graph: RuntimeGraph,
  saver: Checkpointer,
  threadId: string,
  values: Record<string, unknown>,
  options: { asNode?: string; checkpointId?: string },
): Promise<Required<CheckpointConfig>> {
  const tuple = await saver.getTuple({ threadId, checkpointNs: "", ...(options.checkpointId ? { checkpointId: options.checkpointId } : {}) });
  if (options.checkpointId && !tuple) throw new CheckpointNotFoundError(threadId, options.checkpointId);
  const checkpoint = tuple ? { ...tuple.checkpoint } : { v: 1 as const, id: "", ts: "", channelValues: {}, channelVersions: {}, versionsSeen: {} };
  let asNode = options.asNode ?? (tuple ? undefined : START);
  if (asNode === undefined) {
    const last = lastNode(graph, checkpoint.versionsSeen);
    if ("candidates" in last) throw new AmbiguousUpdateError(last.candidates);
    asNode = last.node;
  }
  const node = graph.nodes.get(asNode);
  if (!node) throw new InvalidUpdateError(`updateState: unknown node "${asNode}"`);
  const channels = restoreChannels(graph.specs, checkpoint.channelValues);
  const state = readValues(channels, graph.stateKeyList);
  const writes = await nodeWrites(
    { node: asNode, stateKeys: graph.stateKeys, nodeNames: graph.nodeNames, specs: graph.specs, channels, state, edges: node.edges, runtime: undefined },
    values,
  );
  applyWrites(checkpoint, channels, [{ name: asNode, path: [PULL, asNode], triggers: [], writes }]);
  // The node counts as having run: it must not be triggered by what it has already seen.
  const seen = (checkpoint.versionsSeen[asNode] ??= {});
  for (const chan of node.triggers) seen[chan] = checkpoint.channelVersions[chan] ?? 0;
  const next = { ...checkpoint, id: newCheckpointId(), ts: new Date().toISOString(), channelValues: snapshotChannels(channels) };
  const metadata: CheckpointMetadata = {
    source: "update",
    step: (tuple?.metadata.step ?? -2) + 1,
    parents: {},
    writes: { [asNode]: updatePayload(writes, graph.publicKeys) },
  };
  return saver.put({ threadId, checkpointNs: "", ...(tuple ? { checkpointId: tuple.checkpoint.id } : {}) }, next, metadata);
}
