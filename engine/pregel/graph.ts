/**
 * The runtime form of a compiled graph: every channel (state and internal
 * trigger/join/send channels) and every node with its triggers and edges.
 */
import type { ChannelSpec } from "../channels/base.ts";
import { ephemeral } from "../channels/ephemeral.ts";
import { namedBarrier } from "../channels/named-barrier.ts";
import { topic } from "../channels/topic.ts";
import type { Checkpointer } from "../checkpoint/types.ts";
import { END, START, TASKS } from "../constants.ts";
import type { Branch, GraphDefinition, NodeDefinition } from "./definition.ts";
import { joinChannel, triggerChannel, type EdgeSpec } from "./writes.ts";

export interface RuntimeNode {
  name: string;
  triggers: string[];
  /** undefined for the START node, which writes the run input to the state. */
  definition: NodeDefinition | undefined;
  edges: EdgeSpec;
}

export interface RuntimeGraph {
  name: string;
  specs: Map<string, ChannelSpec>;
  stateKeys: ReadonlySet<string>;
  stateKeyList: readonly string[];
  publicKeys: ReadonlySet<string>;
  publicKeyList: readonly string[];
  nodes: Map<string, RuntimeNode>;
  /** Nodes in planning order (by name), START included. */
  planNodes: RuntimeNode[];
  nodeNames: ReadonlySet<string>;
  checkpointer: Checkpointer | undefined;
  interruptBefore: readonly string[] | "*";
  interruptAfter: readonly string[] | "*";
}

export function buildRuntimeGraph(
  def: GraphDefinition,
  options: { checkpointer?: Checkpointer | undefined; interruptBefore?: readonly string[] | "*"; interruptAfter?: readonly string[] | "*" },
): RuntimeGraph {
  const specs = new Map<string, ChannelSpec>();
  for (const [key, spec] of Object.entries(def.schema)) specs.set(key, spec);
  specs.set(START, ephemeral());
  specs.set(TASKS, topic<unknown>());

  const nodes = new Map<string, RuntimeNode>();
  const edgesOf = new Map<string, { targets: string[]; joins: string[]; branches: Branch[] }>();
  const edgeSpec = (name: string) => {
    let spec = edgesOf.get(name);
    if (!spec) edgesOf.set(name, (spec = { targets: [], joins: [], branches: [] }));
    return spec;
  };
  const triggersOf = new Map<string, string[]>();
  const addTrigger = (node: string, chan: string) => {
    const list = triggersOf.get(node) ?? [];
    if (!list.includes(chan)) list.push(chan);
    triggersOf.set(node, list);
  };

  for (const name of def.nodes.keys()) {
    specs.set(triggerChannel(name), ephemeral());
    addTrigger(name, triggerChannel(name));
  }
  for (const edge of def.edges) {
    if (edge.to === END) continue;
    if (edge.from.length === 1) {
      const from = edge.from[0] as string;
      const targets = edgeSpec(from).targets;
      if (!targets.includes(edge.to)) targets.push(edge.to);
    } else {
      const chan = joinChannel(edge.from, edge.to);
      specs.set(chan, namedBarrier(edge.from));
      addTrigger(edge.to, chan);
      for (const from of edge.from) edgeSpec(from).joins.push(chan);
    }
  }
  for (const branch of def.branches) edgeSpec(branch.from).branches.push(branch);

  nodes.set(START, { name: START, triggers: [START], definition: undefined, edges: edgeSpec(START) });
  for (const [name, definition] of def.nodes) {
    nodes.set(name, { name, triggers: triggersOf.get(name) ?? [], definition, edges: edgeSpec(name) });
  }
  const stateKeyList = Object.keys(def.schema);
  const publicKeyList = stateKeyList.filter((k) => !(def.schema[k] as ChannelSpec).isPrivate);
  return {
    name: def.name,
    specs,
    stateKeys: new Set(stateKeyList),
    stateKeyList,
    publicKeys: new Set(publicKeyList),
    publicKeyList,
    nodes,
    planNodes: [...nodes.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    nodeNames: new Set(def.nodes.keys()),
    checkpointer: options.checkpointer,
    interruptBefore: options.interruptBefore ?? [],
    interruptAfter: options.interruptAfter ?? [],
  };
}
