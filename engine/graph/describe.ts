/**
 * What a compiled graph says about itself without running: its nodes and
 * edges as a drawable graph (LangGraph's `getGraph()` JSON: nodes with ids,
 * edges with `conditional`), subgraph nodes expanded with `xray`, and the
 * JSON Schema of its public state channels.
 */
import type { AnyChannelSpec } from "../channels/base.ts";
import { END, START } from "../constants.ts";
import type { GraphDefinition, NodeDefinition } from "../pregel/definition.ts";

export interface DrawableNode {
  id: string;
  name: string;
  /** "schema" for START and END, "runnable" for nodes, "graph" for a subgraph node not expanded. */
  type: "schema" | "runnable" | "graph";
  data: { name: string; kind: "start" | "end" | "function" | "subgraph" };
  metadata: Record<string, unknown> | null;
}

export interface DrawableEdge {
  source: string;
  target: string;
  /** Routed by a condition (a conditional edge or a node's declared `ends`), not always taken. */
  conditional: boolean;
  /** A path map's label, when it differs from the target. */
  data?: string;
}

export interface DrawableGraph {
  nodes: DrawableNode[];
  edges: DrawableEdge[];
}

/** What describe needs of a subgraph node's graph. */
export interface DescribableGraph {
  readonly name: string;
  getGraph(options?: { xray?: boolean | number }): DrawableGraph;
}

const isDescribable = (value: unknown): value is DescribableGraph =>
  typeof value === "object" && value !== null && typeof (value as { getGraph?: unknown }).getGraph === "function";

/** The subgraph nodes of a graph, by node name. */
export function subgraphsOf(def: GraphDefinition): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [name, node] of def.nodes) if (node.kind === "subgraph") out.set(name, node.subgraph);
  return out;
}

/**
 * The graph's nodes and edges. `xray` (true, or a depth) replaces each
 * subgraph node by its own nodes, named `node:inner`; the edges into the
 * node go to the subgraph's first nodes and its last nodes lead on.
 */
export function drawGraph(def: GraphDefinition, xray: boolean | number = false): DrawableGraph {
  const depth = xray === true ? Infinity : xray === false ? 0 : Math.max(0, xray);
  const nodes: DrawableNode[] = [schemaNode(START, "start")];
  for (const node of def.nodes.values()) nodes.push(nodeOf(node));
  nodes.push(schemaNode(END, "end"));
  const edges: DrawableEdge[] = [];
  const add = (edge: DrawableEdge): void => {
    if (!edges.some((e) => e.source === edge.source && e.target === edge.target && e.conditional === edge.conditional)) edges.push(edge);
  };
  for (const edge of def.edges) for (const from of edge.from) add({ source: from, target: edge.to, conditional: false });
  for (const branch of def.branches) {
    if (branch.pathMap) {
      for (const [label, target] of Object.entries(branch.pathMap)) add({ source: branch.from, target, conditional: true, ...(label === target ? {} : { data: label }) });
    } else {
      // A router without a path map may go anywhere.
      for (const target of [...def.nodes.keys(), END]) add({ source: branch.from, target, conditional: true });
    }
  }
  for (const node of def.nodes.values()) for (const target of node.options.ends ?? []) add({ source: node.name, target, conditional: true });

  if (depth === 0) return { nodes, edges };
  let graph: DrawableGraph = { nodes, edges };
  for (const node of def.nodes.values()) {
    if (node.kind !== "subgraph" || !isDescribable(node.subgraph)) continue;
    graph = expand(graph, node.name, node.subgraph.getGraph({ xray: depth - 1 }));
  }
  return graph;
}

/** Replaces node `name` of `graph` by the nodes of `inner`, prefixed `name:`. */
function expand(graph: DrawableGraph, name: string, inner: DrawableGraph): DrawableGraph {
  const id = (inner: string): string => `${name}:${inner}`;
  const nodes = graph.nodes.flatMap((n) =>
    n.id !== name ? [n] : inner.nodes.filter((i) => i.id !== START && i.id !== END).map((i) => ({ ...i, id: id(i.id), name: id(i.name) })),
  );
  const firsts = inner.edges.filter((e) => e.source === START && e.target !== END);
  const lasts = inner.edges.filter((e) => e.target === END && e.source !== START);
  const edges: DrawableEdge[] = [];
  for (const e of graph.edges) {
    if (e.target === name && e.source === name) continue;
    if (e.target === name) {
      for (const f of firsts) edges.push({ source: e.source, target: id(f.target), conditional: e.conditional || f.conditional });
    } else if (e.source === name) {
      for (const l of lasts) edges.push({ source: id(l.source), target: e.target, conditional: e.conditional || l.conditional });
    } else {
      edges.push(e);
    }
  }
  for (const e of inner.edges) {
    if (e.source === START || e.target === END) continue;
    edges.push({ ...e, source: id(e.source), target: id(e.target) });
  }
  return { nodes, edges };
}

function schemaNode(id: string, kind: "start" | "end"): DrawableNode {
  return { id, name: id, type: "schema", data: { name: id, kind }, metadata: null };
}

function nodeOf(node: NodeDefinition): DrawableNode {
  const tags = node.options.tags;
  const metadata = tags && tags.length > 0 ? { tags: [...tags] } : null;
  return node.kind === "subgraph"
    ? { id: node.name, name: node.name, type: "graph", data: { name: node.name, kind: "subgraph" }, metadata }
    : { id: node.name, name: node.name, type: "runnable", data: { name: node.name, kind: "function" }, metadata };
}

/** The JSON Schema of one channel: the one it declares, else what its kind says. */
function channelSchema(spec: AnyChannelSpec): Record<string, unknown> {
  if (spec.schema) return { ...spec.schema };
  return spec.kind === "topic" ? { type: "array" } : {};
}

/** The JSON Schema of the graph's state: an object of its public channels, none required. */
export function stateJsonSchema(def: GraphDefinition, title: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(def.schema)) {
    if (!spec.isPrivate) properties[key] = { title: key, ...channelSchema(spec) };
  }
  return { $schema: "http://json-schema.org/draft-07/schema#", title, type: "object", properties, additionalProperties: false };
}
