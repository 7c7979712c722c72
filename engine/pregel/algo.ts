/**
 * The pure superstep math: restore channels from a checkpoint, plan the tasks
 * of the next step, apply a step's writes, decide static breakpoints. No I/O.
 */
import type { Channel, ChannelSpec } from "../channels/base.ts";
import type { Checkpoint } from "../checkpoint/types.ts";
import { INTERRUPT, PULL, PUSH, SPECIAL_WRITE_CHANNELS, START, TASKS } from "../constants.ts";
import { InvalidUpdateError } from "../errors.ts";
import { taskId } from "./ids.ts";

export type Channels = Map<string, Channel>;

export interface PlanNode {
  name: string;
  triggers: readonly string[];
}

export interface SendPacket {
  node: string;
  arg: unknown;
}

export interface PlannedTask {
  id: string;
  name: string;
  path: [typeof PULL, string] | [typeof PUSH, number];
  triggers: string[];
  /** For PUSH tasks: the Send argument; PULL tasks read the state. */
  sendArg?: unknown;
}

export interface TaskWrites {
  name: string;
  path: PlannedTask["path"];
  triggers: readonly string[];
  writes: ReadonlyArray<readonly [string, unknown]>;
}

export function emptyCheckpoint(): Omit<Checkpoint, "id" | "ts"> {
  return { v: 1, channelValues: {}, channelVersions: {}, versionsSeen: {} };
}

export function restoreChannels(specs: ReadonlyMap<string, ChannelSpec>, saved: Record<string, unknown>): Channels {
  const channels: Channels = new Map();
  for (const [name, spec] of specs) channels.set(name, spec.create(name, saved[name]));
  return channels;
}

export function snapshotChannels(channels: Channels): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, channel] of channels) {
    const snap = channel.checkpoint();
    if (snap !== undefined) values[name] = snap;
  }
  return values;
}

export function readValues(channels: Channels, keys: readonly string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const key of keys) {
    const channel = channels.get(key);
    if (channel?.isAvailable()) values[key] = channel.get();
  }
  return values;
}

/**
 * Tasks of the next step: one PUSH task per pending Send, then one PULL task
 * per node with a trigger channel updated since the node last ran.
 */
export function planTasks(
  checkpoint: Pick<Checkpoint, "id" | "channelVersions" | "versionsSeen">,
  channels: Channels,
  nodes: readonly PlanNode[],
  step: number,
  ns: string,
): PlannedTask[] {
  const tasks: PlannedTask[] = [];
  const sends = channels.get(TASKS);
  if (sends?.isAvailable()) {
    (sends.get() as SendPacket[]).forEach((packet, index) => {
      tasks.push({
        id: taskId(checkpoint.id, ns, step, packet.node, `${PUSH}:${index}`),
        name: packet.node,
        path: [PUSH, index],
        triggers: [TASKS],
        sendArg: packet.arg,
      });
    });
  }
  for (const node of nodes) {
    const seen = checkpoint.versionsSeen[node.name] ?? {};
    const triggered = node.triggers.filter(
      (chan) => channels.get(chan)?.isAvailable() && (checkpoint.channelVersions[chan] ?? 0) > (seen[chan] ?? 0),
    );
    if (triggered.length === 0) continue;
    tasks.push({
      id: taskId(checkpoint.id, ns, step, node.name, `${PULL}:${node.name}`),
      name: node.name,
      path: [PULL, node.name],
      triggers: triggered,
    });
  }
  return tasks;
}

/** Deterministic order for applying writes: PUSH by index, then PULL by name. */
function compareTasks(a: TaskWrites, b: TaskWrites): number {
  if (a.path[0] !== b.path[0]) return a.path[0] === PUSH ? -1 : 1;
  const [x, y] = [a.path[1], b.path[1]];
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Applies all writes of a step to the channels and bumps versions. Mutates
 * `checkpoint` (versions, versionsSeen) and `channels`. Returns the channels
 * that changed.
 *
 * Versions count for the whole checkpoint, not per channel: every channel
 * bumped here gets one more than the highest version so far (as LangGraph's
 * do). Planning only compares a channel with itself, but "which node ran
 * last" (updateState without asNode) compares what different nodes have seen.
 */
export function applyWrites(
  checkpoint: Pick<Checkpoint, "channelVersions" | "versionsSeen">,
  channels: Channels,
  tasks: readonly TaskWrites[],
  options: { clearUnwritten?: boolean } = {},
): Set<string> {
  const ordered = [...tasks].sort(compareTasks);
  let next = 0;
  const bump = (chan: string) => {
    if (next === 0) next = maxVersion(checkpoint.channelVersions) + 1;
    checkpoint.channelVersions[chan] = next;
  };
  // Record what each task has seen, then let triggers reset (barriers).
  for (const task of ordered) {
    if (task.triggers.length === 0) continue;
    const seen = (checkpoint.versionsSeen[task.name] ??= {});
    for (const chan of task.triggers) seen[chan] = checkpoint.channelVersions[chan] ?? 0;
  }
  for (const task of ordered) {
    for (const chan of task.triggers) {
      if (chan !== TASKS && channels.get(chan)?.consume()) bump(chan);
    }
  }
  const grouped = new Map<string, unknown[]>();
  for (const task of ordered) {
    for (const [chan, value] of task.writes) {
      if (SPECIAL_WRITE_CHANNELS.has(chan)) continue;
      if (!channels.has(chan)) throw new InvalidUpdateError(`node "${task.name}" wrote to unknown channel "${chan}"`);
      let list = grouped.get(chan);
      if (!list) grouped.set(chan, (list = []));
      list.push(value);
    }
  }
  const updated = new Set<string>();
  for (const [chan, values] of grouped) {
    if ((channels.get(chan) as Channel).update(values)) {
      bump(chan);
      updated.add(chan);
    }
  }
  // Channels nobody wrote get an empty update: ephemeral values and topics clear.
  // (Not for run input: a trigger pending at a breakpoint must survive it.)
  if (options.clearUnwritten === false) return updated;
  for (const [chan, channel] of channels) {
    if (!grouped.has(chan) && channel.update([])) {
      bump(chan);
      updated.add(chan);
    }
  }
  return updated;
}

/**
 * Applies the writes a run-input Command saved on a checkpoint (pending
 * writes of NULL_TASK_ID), before the step is planned.
 */
export function applyCommandWrites(
  checkpoint: Pick<Checkpoint, "channelVersions" | "versionsSeen">,
  channels: Channels,
  writes: TaskWrites["writes"] | undefined,
): void {
  if (!writes || writes.length === 0) return;
  applyWrites(checkpoint, channels, [{ name: "__command__", path: [PULL, "~command"], triggers: [], writes }], { clearUnwritten: false });
}

function maxVersion(versions: Record<string, number>): number {
  let max = 0;
  for (const chan in versions) {
    const v = versions[chan] as number;
    if (v > max) max = v;
  }
  return max;
}

/**
 * Whether a static breakpoint fires for these tasks (seed 004 §8.2.2). START
 * is internal: it never pauses, also not for "*" (LangGraph's rule).
 */
export function shouldInterrupt(
  checkpoint: Pick<Checkpoint, "channelVersions" | "versionsSeen">,
  nodes: readonly string[] | "*",
  tasks: readonly { name: string }[],
): boolean {
  if (nodes !== "*" && nodes.length === 0) return false;
  const seen = checkpoint.versionsSeen[INTERRUPT] ?? {};
  const changed = Object.entries(checkpoint.channelVersions).some(([chan, v]) => v > (seen[chan] ?? 0));
  if (!changed) return false;
  return tasks.some((t) => t.name !== START && (nodes === "*" || nodes.includes(t.name)));
}

/** Marks the current state as seen by breakpoints (done when a run resumes). */
export function markSeenByBreakpoints(checkpoint: Pick<Checkpoint, "channelVersions" | "versionsSeen">): void {
  checkpoint.versionsSeen[INTERRUPT] = { ...checkpoint.channelVersions };
}
