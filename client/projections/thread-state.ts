/**
 * A thread's whole projection: values, messages, interrupts, run status,
 * agent tree and presence, as a pure function of (state, event). Each slice
 * keeps its identity when an event does not touch it, so observers can tell
 * what changed by reference. A `resync` replaces everything with its
 * snapshot (messages and tree restart empty: the snapshot has none).
 */
import { assertNever, type EventOf, type ProtocolEvent, type RunStatus } from "../../hub/protocol/index.ts";
import { emptyInterrupts, interruptsFromSnapshot, reduceInterrupts, type InterruptsState } from "./interrupts.ts";
import { reduceMessages, type MessageView } from "./messages.ts";
import { emptyPresence, reducePresence, type PresenceState } from "./presence.ts";
import { reduceTools, type ToolRunView } from "./tools.ts";
import { emptyTree, reduceTree, type TreeState } from "./tree.ts";

export interface RunView {
  run_id: string | null;
  status: RunStatus;
  error?: string;
}

export interface ThreadState {
  thread_id: string;
  /** The latest root `values` (full public state), or null before any. */
  values: Record<string, unknown> | null;
  messages: readonly MessageView[];
  /** Tool executions (the `tools` channel), by tool call id. */
  tools: readonly ToolRunView[];
  interrupts: InterruptsState;
  status: RunView;
  tree: TreeState;
  presence: PresenceState;
}

export function initialThreadState(threadId: string): ThreadState {
  return {
    thread_id: threadId,
    values: null,
    messages: [],
    tools: [],
    interrupts: emptyInterrupts(),
    status: { run_id: null, status: "idle" },
    tree: emptyTree(),
    presence: emptyPresence(),
  };
}

/** The state a `resync` snapshot stands for (presence is kept: it is not in the log). */
export function stateFromResync(previous: ThreadState, event: EventOf<"resync">): ThreadState {
  const { snapshot } = event.params.data;
  const run = snapshot.run;
  const tree: TreeState =
    run.run_id === null ? emptyTree() : { run_id: run.run_id, namespaces: [{ namespace: [], key: "", status: run.status === "idle" ? "completed" : run.status, nodes: [] }] };
  return {
    ...initialThreadState(previous.thread_id),
    values: snapshot.values,
    interrupts: interruptsFromSnapshot(snapshot.interrupts, event.thread_id ?? previous.thread_id, run.run_id),
    status: { run_id: run.run_id, status: run.status },
    tree,
    presence: previous.presence,
  };
}

/** The hub sends `{ __interrupt__: [...] }` alone when a step only raised interrupts: not a new state. */
const onlyInterruptKey = (data: Record<string, unknown>): boolean => {
  const keys = Object.keys(data);
  return keys.length === 1 && keys[0] === "__interrupt__";
};

function reduceStatus(status: RunView, event: EventOf<"lifecycle">): RunView {
  if (event.params.namespace.length > 0) return status;
  const data = event.params.data;
  return {
    run_id: event.run_id ?? status.run_id,
    status: data.cancelled === true ? "cancelled" : data.event,
    ...(data.error === undefined ? {} : { error: data.error }),
  };
}

export function reduceThread(state: ThreadState, event: ProtocolEvent): ThreadState {
  switch (event.method) {
    case "lifecycle": {
      const interrupts = reduceInterrupts(state.interrupts, event);
      return { ...state, status: reduceStatus(state.status, event), tree: reduceTree(state.tree, event), interrupts };
    }
    case "messages": {
      const messages = reduceMessages(state.messages, event);
      return messages === state.messages ? state : { ...state, messages };
    }
    case "values":
      if (event.params.namespace.length > 0 || onlyInterruptKey(event.params.data)) return state;
      return { ...state, values: event.params.data };
    case "tasks":
      return { ...state, tree: reduceTree(state.tree, event), interrupts: reduceInterrupts(state.interrupts, event) };
    case "input.requested":
    case "input.answered":
    case "input.claimed":
    case "input.released":
    case "input.expired":
    case "input.cancelled":
    case "input.escalated":
    case "input.reminder":
    case "input.reassigned": {
      const interrupts = reduceInterrupts(state.interrupts, event);
      return interrupts === state.interrupts ? state : { ...state, interrupts };
    }
    case "presence": {
      const presence = reducePresence(state.presence, event.params.data.update);
      return presence === state.presence ? state : { ...state, presence };
    }
    case "resync":
      return stateFromResync(state, event);
    case "tools": {
      const tools = reduceTools(state.tools, event);
      return tools === state.tools ? state : { ...state, tools };
    }
    case "updates":
    case "checkpoints":
    case "custom":
    // Votes change who decided so far, not whether the question is pending.
    case "input.voted":
    // A thread list's event (client.threads()), not the thread's own log.
    case "thread.status":
      return state;
    default:
      return assertNever(event, "event");
  }
}

/** Folds a sequence of events (tests, replays). */
export function projectThread(threadId: string, events: readonly ProtocolEvent[], from: ThreadState = initialThreadState(threadId)): ThreadState {
  return events.reduce(reduceThread, from);
}
