/**
 * Turns what a node returned into channel writes: the state update, Command
 * goto, and the node's outgoing edges (static, join, conditional with a path
 * map, Send fan-out). Conditional routers see the state with this task's own
 * writes applied.
 */
import type { ChannelSpec } from "../channels/base.ts";
import { END, TASKS } from "../constants.ts";
import { InvalidCommandError, InvalidUpdateError } from "../errors.ts";
import type { Branch } from "./definition.ts";
import { Command, Send } from "../types.ts";
import type { Channels, SendPacket } from "./algo.ts";

export type Write = [channel: string, value: unknown];

export interface EdgeSpec {
  /** Static successors (not END). */
  targets: readonly string[];
  /** Join barrier channels this node feeds. */
  joins: readonly string[];
  branches: readonly Branch[];
}

export interface WriteContext {
  node: string;
  stateKeys: ReadonlySet<string>;
  nodeNames: ReadonlySet<string>;
  specs: ReadonlyMap<string, ChannelSpec>;
  channels: Channels;
  /** The state the task read (for routers: merged with the task's writes). */
  state: Record<string, unknown>;
  edges: EdgeSpec;
  runtime: unknown;
}

export function triggerChannel(node: string): string {
  return `branch:to:${node}`;
}

export function joinChannel(sources: readonly string[], to: string): string {
  return `join:${[...sources].sort().join("+")}:${to}`;
}

function updateWrites(node: string, update: unknown, stateKeys: ReadonlySet<string>): Write[] {
  if (update === undefined || update === null) return [];
  if (typeof update !== "object" || Array.isArray(update)) {
    throw new InvalidUpdateError(`node "${node}" must return an object of state updates, a Command, or nothing; got ${Array.isArray(update) ? "an array" : typeof update}`);
  }
  const writes: Write[] = [];
  for (const [key, value] of Object.entries(update)) {
    if (!stateKeys.has(key)) {
      throw new InvalidUpdateError(`node "${node}" returned key "${key}", which is not a state channel (channels: ${[...stateKeys].join(", ")})`);
    }
    if (value !== undefined) writes.push([key, value]);
  }
  return writes;
}

function gotoWrites(node: string, goto: unknown, nodeNames: ReadonlySet<string>, origin: string): Write[] {
  const list = Array.isArray(goto) ? goto : [goto];
  const writes: Write[] = [];
  for (const target of list) {
    if (target instanceof Send) {
      if (!nodeNames.has(target.node)) throw new InvalidCommandError(`${origin} of "${node}" sends to unknown node "${target.node}"`);
      writes.push([TASKS, { node: target.node, arg: target.arg } satisfies SendPacket]);
    } else if (typeof target === "string") {
      if (target === END) continue;
      if (!nodeNames.has(target)) throw new InvalidCommandError(`${origin} of "${node}" goes to unknown node "${target}"`);
      writes.push([triggerChannel(target), null]);
    } else {
      throw new InvalidCommandError(`${origin} of "${node}" returned ${JSON.stringify(target)}; expected a node name, END or Send`);
    }
  }
  return writes;
}

/** State after applying this task's state writes to copies of the channels. */
function freshState(ctx: WriteContext, writes: readonly Write[]): Record<string, unknown> {
  const byKey = new Map<string, unknown[]>();
  for (const [chan, value] of writes) {
    if (!ctx.stateKeys.has(chan)) continue;
    let list = byKey.get(chan);
    if (!list) byKey.set(chan, (list = []));
    list.push(value);
  }
  if (byKey.size === 0) return ctx.state;
  const state = { ...ctx.state };
  for (const [key, values] of byKey) {
    const spec = ctx.specs.get(key) as ChannelSpec;
    const copy = spec.create(key, ctx.channels.get(key)?.checkpoint());
    copy.update(values);
    if (copy.isAvailable()) state[key] = copy.get();
  }
  return state;
}

/**
 * Writes of a Command passed as run input together with `resume`: its update
 * and goto land when the resumed step completes, as if one more task of that
 * step had written them (LangGraph's Command(resume, update, goto)).
 */
export function commandInputWrites(
  update: unknown,
  goto: unknown,
  stateKeys: ReadonlySet<string>,
  nodeNames: ReadonlySet<string>,
): Write[] {
  return [...updateWrites("Command input", update, stateKeys), ...(goto === undefined ? [] : gotoWrites("the run", goto, nodeNames, "Command input goto"))];
}

/** All writes of a finished node: its update, goto, and its outgoing edges. */
export async function nodeWrites(ctx: WriteContext, result: unknown): Promise<Write[]> {
  const writes: Write[] = [];
  if (result instanceof Command) {
    if (result.hasResume) throw new InvalidCommandError(`node "${ctx.node}" returned a Command with resume; resume is only valid as run input`);
    writes.push(...updateWrites(ctx.node, result.update, ctx.stateKeys));
    if (result.goto !== undefined) writes.push(...gotoWrites(ctx.node, result.goto, ctx.nodeNames, "Command goto"));
  } else {
    writes.push(...updateWrites(ctx.node, result, ctx.stateKeys));
  }
  for (const target of ctx.edges.targets) writes.push([triggerChannel(target), null]);
  for (const join of ctx.edges.joins) writes.push([join, ctx.node]);
  if (ctx.edges.branches.length > 0) {
    const state = freshState(ctx, writes);
    for (const branch of ctx.edges.branches) {
      const answer = await branch.router(state, ctx.runtime);
      const mapped = mapBranch(ctx.node, answer, branch);
      writes.push(...gotoWrites(ctx.node, mapped, ctx.nodeNames, "conditional edge"));
    }
  }
  return writes;
}

function mapBranch(node: string, answer: unknown, branch: Branch): unknown[] {
  const list = Array.isArray(answer) ? answer : [answer];
  return list.map((item) => {
    if (item instanceof Send || branch.pathMap === undefined) return item;
    if (typeof item !== "string" || !(item in branch.pathMap)) {
      throw new InvalidCommandError(
        `conditional edge of "${node}" returned ${JSON.stringify(item)}, which is not in its path map (${Object.keys(branch.pathMap).join(", ")})`,
      );
    }
    return branch.pathMap[item];
  });
}

/** The `updates` payload for a task: its state writes as an object (null if none). */
export function updatePayload(writes: ReadonlyArray<readonly [string, unknown]>, publicKeys: ReadonlySet<string>): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null;
  for (const [chan, value] of writes) {
    if (!publicKeys.has(chan)) continue;
    out ??= {};
    out[chan] = value;
  }
  return out;
}
