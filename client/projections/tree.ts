/**
 * Agent tree projection: the namespaces of the current run (root and
 * subgraphs, from `lifecycle`) and the nodes that ran in each (from `tasks`).
 * Kept flat and pure; `buildTree` nests it for display. A new root run
 * starts a new tree.
 */
import type { AgentStatus, EventOf, Namespace, ProtocolEvent } from "../../hub/protocol/index.ts";
import { namespaceKey } from "./messages.ts";

export type NodeStatus = "running" | "completed" | "failed" | "interrupted";

export interface NodeView {
  name: string;
  task_id: string;
  status: NodeStatus;
  error?: string;
  /** Event timestamps (epoch ms): the task's start and its result, for durations. */
  started_at?: number;
  ended_at?: number;
}

export type NamespaceStatus = AgentStatus | "cancelled";

export interface NamespaceView {
  namespace: Namespace;
  key: string;
  graph_name?: string;
  /** The parent's node that runs this subgraph (the segment's `node` part). */
  node?: string;
  status: NamespaceStatus;
  error?: string;
  nodes: readonly NodeView[];
  /** Timestamps (epoch ms) of its first lifecycle event and of the one that ended it. */
  started_at?: number;
  ended_at?: number;
}

export interface TreeState {
  run_id: string | null;
  /** In order of first appearance; a parent always precedes its children. */
  namespaces: readonly NamespaceView[];
}

export interface AgentTree extends NamespaceView {
  children: AgentTree[];
}

export const emptyTree = (): TreeState => ({ run_id: null, namespaces: [] });

const nodeOfSegment = (segment: string | undefined): string | undefined => (segment === undefined ? undefined : (segment.split(":")[0] ?? segment));

function upsert(state: TreeState, namespace: Namespace, change: (view: NamespaceView) => NamespaceView): TreeState {
  const key = namespaceKey(namespace);
  const index = state.namespaces.findIndex((n) => n.key === key);
  const existing = state.namespaces[index];
  const node = nodeOfSegment(namespace[namespace.length - 1]);
  const base: NamespaceView = existing ?? { namespace, key, status: "started", nodes: [], ...(node === undefined ? {} : { node }) };
  const updated = change(base);
  if (!existing) return { ...state, namespaces: [...state.namespaces, updated] };
  const namespaces = [...state.namespaces];
  namespaces[index] = updated;
  return { ...state, namespaces };
}

function onLifecycle(state: TreeState, event: EventOf<"lifecycle">): TreeState {
  const data = event.params.data;
  const ns = event.params.namespace;
  let tree = state;
  if (ns.length === 0 && data.event === "started" && event.run_id !== undefined && event.run_id !== state.run_id) tree = { run_id: event.run_id, namespaces: [] };
  else if (ns.length === 0 && tree.run_id === null && event.run_id !== undefined) tree = { ...tree, run_id: event.run_id };
  const at = event.params.timestamp;
  const ends = data.event === "completed" || data.event === "failed" || data.event === "interrupted";
  return upsert(tree, ns, (view) => ({
    ...view,
    started_at: view.started_at ?? at,
    ...(ends ? { ended_at: at } : {}),
    status: data.cancelled === true ? "cancelled" : data.event,
    ...(data.graph_name === undefined ? {} : { graph_name: data.graph_name }),
    ...(event.params.node === undefined ? {} : { node: event.params.node }),
    ...(data.error === undefined ? {} : { error: data.error }),
  }));
}

function onTask(state: TreeState, event: EventOf<"tasks">): TreeState {
  const data = event.params.data;
  const isResult = data.result !== undefined || data.error !== undefined || data.interrupts !== undefined;
  let status: NodeStatus = "running";
  if (isResult) status = data.error ? "failed" : (data.interrupts?.length ?? 0) > 0 ? "interrupted" : "completed";
  const time = event.params.timestamp;
  return upsert(state, event.params.namespace, (view) => {
    const at = view.nodes.findIndex((n) => n.task_id === data.id);
    // A result without a start seen (a replay that began later) has no duration: no started_at.
    const startedAt = at === -1 ? (isResult ? undefined : time) : view.nodes[at]?.started_at;
    const node: NodeView = {
      name: data.name,
      task_id: data.id,
      status,
      ...(data.error ? { error: data.error } : {}),
      ...(startedAt === undefined ? {} : { started_at: startedAt }),
      ...(isResult ? { ended_at: time } : {}),
    };
    const nodes = [...view.nodes];
    if (at === -1) nodes.push(node);
    else nodes[at] = node;
    return { ...view, nodes };
  });
}

export function reduceTree(state: TreeState, event: ProtocolEvent): TreeState {
  switch (event.method) {
    case "lifecycle":
      return onLifecycle(state, event);
    case "tasks":
      return onTask(state, event);
    default:
      return state;
  }
}

/** Nests the flat namespaces: each under its nearest known ancestor. */
export function buildTree(state: TreeState): AgentTree | null {
  const byKey = new Map<string, AgentTree>();
  for (const view of state.namespaces) byKey.set(view.key, { ...view, children: [] });
  let root: AgentTree | null = null;
  for (const view of state.namespaces) {
    const tree = byKey.get(view.key);
    if (!tree) continue;
    if (view.namespace.length === 0) {
      root = tree;
      continue;
    }
    let parent: AgentTree | undefined;
    for (let depth = view.namespace.length - 1; depth >= 0 && !parent; depth--) parent = byKey.get(namespaceKey(view.namespace.slice(0, depth)));
    parent?.children.push(tree);
  }
  return root;
}
