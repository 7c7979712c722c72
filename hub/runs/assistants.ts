/**
 * What the hub serves: named assistants, each a compiled graph that shares the
 * hub's checkpointer. The hub depends on this small port, not on a graph's
 * state type, so any CompiledStateGraph fits.
 */
import type { Checkpointer, Command, DrawableGraph, HistoryOptions, StateSnapshot, StreamOptions, StreamPart } from "../../engine/index.ts";

export interface AssistantGraph {
  readonly name: string;
  stream(input: Record<string, unknown> | Command | null, options: StreamOptions): AsyncIterableIterator<StreamPart>;
  getState(threadId: string, options?: { checkpointId?: string }): Promise<StateSnapshot>;
  getStateHistory(threadId: string, options?: HistoryOptions): AsyncIterable<StateSnapshot>;
  /** Throws (UnknownInputKeyError) for input the graph would refuse: checked before a run exists. */
  checkInput(input: Record<string, unknown>): void;
  /** Nodes and edges (the LangGraph API's `/assistants/:id/graph`); a graph without it draws nothing. */
  getGraph?(options?: { xray?: boolean | number }): DrawableGraph;
  /** Subgraph nodes' graphs by namespace (`/assistants/:id/subgraphs`). */
  getSubgraphs?(options?: { recurse?: boolean }): Map<string, AssistantGraph>;
  /** JSON Schema of the public state channels (`/assistants/:id/schemas`). */
  stateSchema?(): Record<string, unknown>;
  /** Writes values as node `asNode` (the LangGraph API's `threads.updateState`). */
  updateState?(threadId: string, values: Record<string, unknown> | null, options?: { asNode?: string; checkpointId?: string }): Promise<{ threadId: string; checkpointNs: string; checkpointId: string }>;
}

export interface Assistant {
  /** The `assistant_id` clients name in `run.start`. */
  id: string;
  description: string;
  graph: AssistantGraph;
}

/** Builds the assistants once the hub has opened its checkpointer. */
export type AssistantFactory = (checkpointer: Checkpointer) => readonly Assistant[];

export class AssistantRegistry {
  readonly #byId = new Map<string, Assistant>();

  constructor(assistants: readonly Assistant[]) {
    for (const assistant of assistants) {
      if (this.#byId.has(assistant.id)) throw new Error(`two assistants are named "${assistant.id}"`);
      this.#byId.set(assistant.id, assistant);
    }
  }

  get(id: string): Assistant | undefined {
    return this.#byId.get(id);
  }

  list(): Assistant[] {
    return [...this.#byId.values()];
  }
}
