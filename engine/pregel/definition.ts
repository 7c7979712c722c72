/** The validated, immutable description of a graph that compile() hands to the runtime. */
import type { StateSchema } from "../types.ts";
import type { NodeOptions } from "../graph/state-graph.ts";
import type { CompiledStateGraph } from "../graph/compiled.ts";

export type NodeFunction = (state: Record<string, unknown>, runtime: unknown) => unknown;

export type NodeDefinition =
  | { name: string; kind: "function"; action: NodeFunction; options: NodeOptions }
  | { name: string; kind: "subgraph"; subgraph: CompiledStateGraph<StateSchema>; options: NodeOptions };

export interface Branch {
  from: string;
  router: (state: Record<string, unknown>, runtime: unknown) => unknown;
  pathMap?: Readonly<Record<string, string>>;
}

export interface GraphDefinition {
  name: string;
  schema: StateSchema;
  nodes: ReadonlyMap<string, NodeDefinition>;
  edges: ReadonlyArray<{ from: string[]; to: string }>;
  branches: readonly Branch[];
}
