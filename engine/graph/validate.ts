/** compile()-time checks, each failing with a named GraphValidationError. */
import { END, START } from "../constants.ts";
import { GraphValidationError } from "../errors.ts";
import type { CompileOptions, GraphDefinition } from "../pregel/definition.ts";

export function validateGraph(def: GraphDefinition, options: CompileOptions): void {
  const known = (name: string) => name === START || name === END || def.nodes.has(name);
  const unknown = (name: string, where: string) =>
    new GraphValidationError("unknown_node", `${where} names unknown node "${name}" (known: ${[...def.nodes.keys()].join(", ") || "none"})`);

  for (const edge of def.edges) {
    for (const from of edge.from) if (!known(from)) throw unknown(from, `edge ${edge.from.join("+")} -> ${edge.to}`);
    if (!known(edge.to)) throw unknown(edge.to, `edge ${edge.from.join("+")} -> ${edge.to}`);
  }
  for (const branch of def.branches) {
    if (!known(branch.from)) throw unknown(branch.from, "conditional edge");
    for (const to of Object.values(branch.pathMap ?? {})) {
      if (!known(to) || to === START) throw unknown(to, `path map of the conditional edge from "${branch.from}"`);
    }
  }
  for (const node of def.nodes.values()) {
    for (const to of node.options.ends ?? []) if (!known(to) || to === START) throw unknown(to, `ends of node "${node.name}"`);
  }
  for (const [label, list] of [
    ["interruptBefore", options.interruptBefore],
    ["interruptAfter", options.interruptAfter],
  ] as const) {
    if (list === undefined || list === "*") continue;
    for (const name of list) if (!def.nodes.has(name)) throw unknown(name, label);
  }
  // Breakpoints need a checkpointer only to run: a subgraph uses its parent's,
  // so a graph that pauses with none fails then (MissingCheckpointerError).

  const successors = new Map<string, Set<string>>();
  const add = (from: string, to: string) => {
    let set = successors.get(from);
    if (!set) successors.set(from, (set = new Set()));
    set.add(to);
  };
  for (const edge of def.edges) for (const from of edge.from) add(from, edge.to);
  let dynamic = false;
  for (const branch of def.branches) {
    if (branch.pathMap) for (const to of Object.values(branch.pathMap)) add(branch.from, to);
    else dynamic = true;
  }
  for (const node of def.nodes.values()) for (const to of node.options.ends ?? []) add(node.name, to);

  // A conditional edge from START is an entry too, with or without a path map
  // (the map-reduce pattern: addConditionalEdges(START, (s) => s.items.map((i) => new Send(...)))).
  if (!successors.has(START) && !def.branches.some((b) => b.from === START)) {
    throw new GraphValidationError("no_entry", `graph "${def.name}" has no entry: add an edge from START`);
  }
  // A conditional edge without a path map may go anywhere: reachability is then unknowable.
  if (dynamic) return;
  const seen = new Set<string>([START]);
  const queue = [START];
  while (queue.length > 0) {
    const current = queue.pop() as string;
    for (const next of successors.get(current) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  for (const name of def.nodes.keys()) {
    if (!seen.has(name)) {
      throw new GraphValidationError(
        "unreachable_node",
        `node "${name}" is unreachable from START; add an edge to it, or if another node routes to it with Command({ goto }) or Send, declare it in that node's { ends } or in the conditional edge's path map`,
      );
    }
  }
}
