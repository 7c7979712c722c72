/**
 * The validated, immutable description of a graph that compile() hands to the
 * runtime, and the options it is compiled with. Lives below graph/ (the
 * builder) so that pregel/ never imports the builder that imports it.
 */
import type { Checkpointer } from "../checkpoint/types.ts";
import type { TaskContext } from "../runtime/context.ts";
import type { RetryPolicy, StateSchema } from "../types.ts";

export interface NodeOptions {
  retry?: RetryPolicy;
  /** Fail the task (and abort its signal) when it runs longer than this. */
  timeoutMs?: number;
  /**
   * Nodes this node may route to with Command({ goto }); declares those edges
   * so compile() can check reachability.
   */
  ends?: readonly string[];
  /** Extra tags for this node's model calls and stream metadata. */
  tags?: readonly string[];
}

export interface CompileOptions {
  checkpointer?: Checkpointer;
  interruptBefore?: readonly string[] | "*";
  interruptAfter?: readonly string[] | "*";
  name?: string;
}

export type NodeFunction = (state: Record<string, unknown>, runtime: unknown) => unknown;

/** What the runtime needs of a compiled graph used as a node. */
export interface SubgraphNode {
  readonly isCompiledGraph: true;
  /** Runs the subgraph as this task and returns its update for the parent (keys in `parentKeys`). */
  runAsSubgraph(state: Record<string, unknown>, task: TaskContext, nodeName: string, parentKeys: ReadonlySet<string>): Promise<unknown>;
}

export type NodeDefinition =
  | { name: string; kind: "function"; action: NodeFunction; options: NodeOptions }
  | { name: string; kind: "subgraph"; subgraph: SubgraphNode; options: NodeOptions };

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
