/**
 * StateGraph: the builder. Declares nodes and edges over a state schema of
 * channel specs; compile() validates the graph and returns a runnable graph.
 */
import { END, START, isReservedName } from "../constants.ts";
import { GraphValidationError } from "../errors.ts";
import type { NodeAction, Runtime, Send, StateOf, StateSchema } from "../types.ts";
import { CompiledStateGraph } from "./compiled.ts";
import type { Branch, CompileOptions, GraphDefinition, NodeDefinition, NodeFunction, NodeOptions } from "../pregel/definition.ts";

export type { CompileOptions, NodeOptions };
import { validateGraph } from "./validate.ts";

export type Router<S extends StateSchema, Context = unknown> = (
  state: StateOf<S>,
  runtime: Runtime<Context>,
) => RouterResult | Promise<RouterResult>;

export type RouterResult = string | Send | ReadonlyArray<string | Send>;

export class StateGraph<S extends StateSchema, Context = unknown> {
  readonly #schema: S;
  readonly #nodes = new Map<string, NodeDefinition>();
  readonly #edges: Array<{ from: string[]; to: string }> = [];
  readonly #branches: Branch[] = [];

  constructor(schema: S) {
    for (const key of Object.keys(schema)) {
      if (isReservedName(key)) {
        throw new GraphValidationError("reserved_name", `state channel name "${key}" is reserved (no "__" prefix, "|" or ":")`);
      }
    }
    this.#schema = schema;
  }

  addNode(name: string, action: NodeAction<S, Context> | CompiledStateGraph<StateSchema>, options: NodeOptions = {}): this {
    if (isReservedName(name)) {
      throw new GraphValidationError("reserved_name", `node name "${name}" is reserved (no "__" prefix, "|" or ":")`);
    }
    if (this.#nodes.has(name)) throw new GraphValidationError("duplicate_node", `node "${name}" is already defined`);
    const node: NodeDefinition =
      action instanceof CompiledStateGraph
        ? { name, kind: "subgraph", subgraph: action, options }
        : { name, kind: "function", action: action as NodeFunction, options };
    this.#nodes.set(name, node);
    return this;
  }

  /** Static edge; with several sources, a join: `to` runs once all of them ran. */
  addEdge(from: string | readonly string[], to: string): this {
    const sources = typeof from === "string" ? [from] : [...from];
    if (sources.length === 0) throw new GraphValidationError("invalid_edge", `edge into "${to}" has no source`);
    if (to === START) throw new GraphValidationError("invalid_edge", "START cannot be the target of an edge");
    if (sources.includes(END)) throw new GraphValidationError("invalid_edge", "END cannot be the source of an edge");
    if (sources.length > 1 && sources.includes(START)) {
      throw new GraphValidationError("invalid_edge", "START cannot be part of a join");
    }
    this.#edges.push({ from: sources, to });
    return this;
  }

  /**
   * Routes after `from` by the router's answer: node name(s), Send(s) or END.
   * A path map translates answers to node names and declares the destinations.
   */
  addConditionalEdges(
    from: string,
    router: Router<S, Context>,
    pathMap?: Readonly<Record<string, string>> | readonly string[],
  ): this {
    if (from === END) throw new GraphValidationError("invalid_edge", "END cannot be the source of an edge");
    const map = Array.isArray(pathMap)
      ? Object.fromEntries((pathMap as readonly string[]).map((n) => [n, n]))
      : (pathMap as Readonly<Record<string, string>> | undefined);
    this.#branches.push({ from, router: router as Branch["router"], ...(map ? { pathMap: map } : {}) });
    return this;
  }

  /** Adds the nodes in order, chained by static edges. */
  addSequence(nodes: ReadonlyArray<readonly [string, NodeAction<S, Context>]> | Readonly<Record<string, NodeAction<S, Context>>>): this {
    const entries = Array.isArray(nodes) ? nodes : Object.entries(nodes);
    if (entries.length === 0) throw new GraphValidationError("invalid_edge", "addSequence needs at least one node");
    let previous: string | undefined;
    for (const [name, action] of entries as ReadonlyArray<readonly [string, NodeAction<S, Context>]>) {
      this.addNode(name, action);
      if (previous !== undefined) this.addEdge(previous, name);
      previous = name;
    }
    return this;
  }

  compile(options: CompileOptions = {}): CompiledStateGraph<S, Context> {
    const definition: GraphDefinition = {
      name: options.name ?? "graph",
      schema: this.#schema,
      nodes: new Map(this.#nodes),
      edges: this.#edges.map((e) => ({ from: [...e.from], to: e.to })),
      branches: [...this.#branches],
    };
    validateGraph(definition, options);
    return new CompiledStateGraph<S, Context>(definition, options);
  }
}
