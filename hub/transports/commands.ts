/**
 * The command dispatcher every transport shares (thread WebSocket, `/ws`,
 * `POST /commands`). A command arrives decoded; the reply is a success or an
 * error response, never a throw. Subscriptions need a connection, so they go
 * through a SubscriptionHost that only socket sessions provide.
 */
import { checkPermission, type Principal, type ThreadAction } from "../auth/index.ts";
import {
  SwitchboardError,
  THREADLESS_METHODS,
  assertNever,
  errorResponse,
  type CommandMethod,
  type CommandOf,
  type ProtocolCommand,
  type ProtocolResponse,
  type SubscriptionFilter,
} from "../protocol/index.ts";
import { toSwitchboardError, type Answer } from "../runs/index.ts";
import type { MultitaskStrategy, ThreadRecord } from "../store/index.ts";
import type { HubServices } from "../services.ts";
import type { ReplayResult, ThreadLog } from "../threads/index.ts";

/** What a socket session offers to `subscription.*`. */
export interface SubscriptionHost {
  /**
   * Registers the filter, computes its replay and attaches — synchronously,
   * so no event falls between the replay and the live stream.
   */
  subscribe(log: ThreadLog, filter: SubscriptionFilter, since: number | undefined): { subscriptionId: string; replay: ReplayResult };
  unsubscribe(threadId: string, subscriptionId: string): boolean;
  /**
   * `subscription.reconnect`: re-attaches known subscriptions of this thread
   * (same ids, same filters) and replays what they missed after `since`.
   */
  restore(log: ThreadLog, subscriptionIds: readonly string[], since: number | undefined): { restored: string[]; replay: ReplayResult };
  /** `on_disconnect: "cancel"`: the run is cancelled when this connection closes. */
  cancelOnDisconnect(thread: ThreadRecord, runId: string): void;
}

export interface CommandContext {
  principal: Principal;
  services: HubServices;
  /** Thread of the endpoint (`/threads/:id/...`); undefined on `/ws`. */
  urlThreadId: string | undefined;
  host: SubscriptionHost | undefined;
}

/** A reply; `replay` is sent right after the response (subscribe). */
export interface CommandReply {
  response: ProtocolResponse;
  replay?: ReplayResult;
}

/** Subscribe's reply must be produced in the same tick it is sent: see SubscriptionHost. */
export type CommandOutcome = CommandReply | { finish: () => CommandReply };

const ACTION_OF = {
  "run.start": "operate",
  "run.cancel": "operate",
  "state.fork": "operate",
  "input.respond": "answer",
  "input.inject": "answer",
  "input.claim": "answer",
  "input.release": "answer",
  "subscription.subscribe": "read",
  "subscription.unsubscribe": "read",
  "subscription.reconnect": "read",
  "queue.subscribe": "read",
  "queue.unsubscribe": "read",
  "agent.getTree": "read",
  "state.get": "read",
  "state.listCheckpoints": "read",
  "presence.update": "read",
} as const satisfies Record<CommandMethod, ThreadAction>;

const THREADLESS: ReadonlySet<CommandMethod> = new Set(THREADLESS_METHODS);

/** Commands that may create the thread (the SDK picks thread ids client-side). */
const CREATES_THREAD: ReadonlySet<CommandMethod> = new Set(["run.start", "subscription.subscribe"]);

export async function handleCommand(command: ProtocolCommand, ctx: CommandContext): Promise<CommandOutcome> {
  const threadId = command.thread_id ?? ctx.urlThreadId;
  const tag = (response: ProtocolResponse): ProtocolResponse => (ctx.urlThreadId === undefined && threadId !== undefined ? { ...response, thread_id: threadId } : response);
  try {
    const denied = checkPermission(ctx.principal, ACTION_OF[command.method]);
    if (denied) throw new SwitchboardError("permission_denied", denied.message);
    if (ctx.urlThreadId !== undefined && command.thread_id !== undefined && command.thread_id !== ctx.urlThreadId) {
      throw new SwitchboardError("invalid_argument", `thread_id ${command.thread_id} does not match the endpoint's thread ${ctx.urlThreadId}`);
    }
    if (THREADLESS.has(command.method)) unsupported(command.method, "by this hub yet (review queues come with review routing)");
    if (threadId === undefined) throw new SwitchboardError("invalid_argument", `${command.method} needs a thread_id on this endpoint`);
    const thread = await ctx.services.runs.ensureThread(threadId, ctx.principal, CREATES_THREAD.has(command.method));
    const outcome = await dispatch(command, thread, ctx);
    if ("finish" in outcome) {
      return { finish: () => { const reply = outcome.finish(); return { ...reply, response: tag(reply.response) }; } };
    }
    return { ...outcome, response: tag(outcome.response) };
  } catch (error) {
    const e = toSwitchboardError(error);
    if (e.code === "unknown_error") ctx.services.logger.error(`${command.method} failed: ${e.message}`);
    return { response: tag(errorResponse(command.id, e.code, e.message, e.details)) };
  }
}

const success = (command: ProtocolCommand, result: Record<string, unknown>, log?: ThreadLog): CommandReply => ({
  response: { type: "success", id: command.id, result, ...(log ? { meta: { applied_through_seq: log.headSeq } } : {}) },
});

const unsupported = (method: string, why: string): never => {
  throw new SwitchboardError("not_supported", `${method} is not supported ${why}`);
};

async function dispatch(command: ProtocolCommand, thread: ThreadRecord, ctx: CommandContext): Promise<CommandOutcome> {
  const { runs } = ctx.services;
  switch (command.method) {
    case "run.start": {
      const cancelOnDisconnect = onDisconnectOf(command.params) === "cancel";
      if (cancelOnDisconnect && !ctx.host) unsupported('on_disconnect "cancel"', "over HTTP; it needs a socket");
      const request = { assistantId: command.params.assistant_id, input: command.params.input, strategy: strategyOf(command), checkpointId: forkOf(command.params.config) };
      const run = await runs.start(thread, request, ctx.principal);
      if (cancelOnDisconnect) ctx.host?.cancelOnDisconnect(thread, run.runId);
      return success(command, { run_id: run.runId }, await runs.openLog(thread));
    }
    case "run.cancel": {
      const run = await runs.cancel(thread, command.params.run_id);
      return success(command, { run_id: run.runId, status: run.status });
    }
    case "input.respond": {
      const params = command.params;
      if (params.update !== undefined || params.goto !== undefined) unsupported("input.respond with update/goto", "yet");
      const answers: Answer[] = "responses" in params ? params.responses : [{ interrupt_id: params.interrupt_id, response: params.response }];
      const run = await runs.respond(thread, answers, ctx.principal);
      return success(command, { run_id: run.runId }, await runs.openLog(thread));
    }
    case "subscription.subscribe": {
      const host = ctx.host ?? unsupported(command.method, "over HTTP; open an event stream instead");
      const log = await runs.openLog(thread);
      const filter = filterOf(command);
      const since = sinceOf(command.params);
      return {
        finish: () => {
          const { subscriptionId, replay } = host.subscribe(log, filter, since);
          const replayed = replay.kind === "events" ? replay.entries.length : 0;
          return { ...success(command, { subscription_id: subscriptionId, replayed_events: replayed }, log), replay };
        },
      };
    }
    case "subscription.unsubscribe": {
      const host = ctx.host ?? unsupported(command.method, "over HTTP");
      if (!host.unsubscribe(thread.threadId, command.params.subscription_id)) {
        throw new SwitchboardError("no_such_subscription", `no subscription ${command.params.subscription_id} on this connection`);
      }
      return success(command, {});
    }
    case "subscription.reconnect": {
      const host = ctx.host ?? unsupported(command.method, "over HTTP");
      const log = await runs.openLog(thread);
      const { last_event_id: lastEventId, subscriptions = [] } = command.params;
      // event_id is String(seq); a resync's id "<seq>:resync" also names its seq.
      const since = lastEventId === undefined ? undefined : Number(/^\d+/.exec(lastEventId)?.[0] ?? Number.NaN);
      if (since !== undefined && !Number.isSafeInteger(since)) throw new SwitchboardError("invalid_argument", `last_event_id ${lastEventId} is not an event id of this hub`);
      return {
        finish: () => {
          const { restored, replay } = host.restore(log, subscriptions, since);
          const missed = replay.kind === "events" ? replay.entries.length : 0;
          const result = { restored: restored.length === subscriptions.length && restored.length > 0, restored_subscriptions: restored, missed_events: missed };
          return { ...success(command, result, log), replay };
        },
      };
    }
    case "state.get": {
      if (command.params.namespace.length > 0) throw new SwitchboardError("no_such_namespace", "state.get reads the root namespace only");
      const graph = assistantGraph(thread, ctx);
      if (!graph) return success(command, { values: {} });
      const state = await graph.getState(thread.threadId);
      const keys = command.params.keys;
      const values = keys === undefined ? state.values : Object.fromEntries(Object.entries(state.values).filter(([k]) => keys.includes(k)));
      return success(command, { values, ...(state.config ? { checkpoint: { id: state.config.checkpointId } } : {}) });
    }
    case "state.listCheckpoints": {
      const graph = assistantGraph(thread, ctx);
      const checkpoints: Array<Record<string, unknown>> = [];
      if (graph) {
        const { limit, before } = command.params;
        for await (const snap of graph.getStateHistory(thread.threadId, { ...(limit ? { limit } : {}), ...(before ? { before } : {}) })) {
          if (!snap.config) continue;
          checkpoints.push({ id: snap.config.checkpointId, timestamp: snap.createdAt ?? new Date(0).toISOString(), step: snap.metadata?.step ?? -1, metadata: snap.metadata ?? {} });
        }
      }
      return success(command, { checkpoints });
    }
    case "agent.getTree": {
      const log = await runs.openLog(thread);
      const status = log.run.status;
      const agentStatus = status === "idle" ? "completed" : status === "cancelled" ? "failed" : status;
      return success(command, { tree: { namespace: [], status: agentStatus, graph_name: thread.assistantId ?? "unknown" } }, log);
    }
    case "state.fork": {
      if (thread.assistantId === null) throw new SwitchboardError("no_such_checkpoint", `thread ${thread.threadId} has no checkpoints`);
      const { checkpoint_id: checkpointId, input = null } = command.params;
      const run = await runs.start(thread, { assistantId: thread.assistantId, input, strategy: "reject", checkpointId }, ctx.principal);
      return success(command, { run_id: run.runId, thread_id: thread.threadId }, await runs.openLog(thread));
    }
    case "input.inject":
    case "input.claim":
    case "input.release":
    case "queue.subscribe":
    case "queue.unsubscribe":
    case "presence.update":
      return unsupported(command.method, "by this hub yet");
    default:
      return assertNever(command, "command");
  }
}

function assistantGraph(thread: ThreadRecord, ctx: CommandContext) {
  return thread.assistantId === null ? undefined : ctx.services.assistants.get(thread.assistantId)?.graph;
}

const STRATEGIES: readonly MultitaskStrategy[] = ["reject", "enqueue", "interrupt", "rollback"];

/** The SDK sends both `multitask_strategy` and `multitaskStrategy`. */
function strategyOf(command: CommandOf<"run.start">): MultitaskStrategy {
  const params: { multitask_strategy?: unknown; multitaskStrategy?: unknown } = command.params;
  const value = params.multitask_strategy ?? params.multitaskStrategy;
  if (value === undefined) return "reject";
  const found = STRATEGIES.find((s) => s === value);
  if (!found) throw new SwitchboardError("invalid_argument", `multitask strategy must be one of ${STRATEGIES.join(", ")}`);
  return found;
}

/** The official SDK folds `run.start({ forkFrom })` into `config.configurable.checkpoint_id`. */
function forkOf(config: Record<string, unknown> | undefined): string | undefined {
  const configurable = config?.["configurable"];
  if (typeof configurable !== "object" || configurable === null || !("checkpoint_id" in configurable)) return undefined;
  const id = configurable.checkpoint_id;
  if (typeof id !== "string" || id === "") throw new SwitchboardError("invalid_argument", "config.configurable.checkpoint_id must be a checkpoint id");
  return id;
}

/** Extension: runs continue when their client goes away unless `on_disconnect: "cancel"`. */
function onDisconnectOf(params: object): "continue" | "cancel" {
  const value = "on_disconnect" in params ? params.on_disconnect : undefined;
  if (value === undefined || value === "continue") return "continue";
  if (value === "cancel") return "cancel";
  throw new SwitchboardError("invalid_argument", 'on_disconnect must be "continue" or "cancel"');
}

function filterOf(command: CommandOf<"subscription.subscribe">): SubscriptionFilter {
  const { channels, namespaces, depth } = command.params;
  return { channels, namespaces, depth };
}

/** `since` (a seq) is a Switchboard extension of subscribe: replay exactly what came after it. */
export function sinceOf(params: object): number | undefined {
  const since = "since" in params ? params.since : undefined;
  if (since === undefined || since === null) return undefined;
  if (typeof since !== "number" || !Number.isSafeInteger(since) || since < 0) {
    throw new SwitchboardError("invalid_argument", "since must be a non-negative integer seq");
  }
  return since;
}
