/**
 * The command dispatcher every transport shares (thread WebSocket, `/ws`,
 * `POST /commands`). A command arrives decoded; the reply is a success or an
 * error response, never a throw. Subscriptions need a connection, so they go
 * through a SubscriptionHost that only socket sessions provide.
 */
import { checkPermission, type Principal, type ThreadAction } from "../auth/index.ts";
import type { PresenceResult } from "../presence/index.ts";
import {
  SwitchboardError,
  assertNever,
  errorResponse,
  type ErrorResponse,
  type CommandOf,
  type CommandMethod,
  type ProtocolCommand,
  type ProtocolEvent,
  type ProtocolResponse,
  type SubscriptionFilter,
  type ThreadRecordJson,
} from "../protocol/index.ts";
import { RESUME_POLICY_KEY, type AnswerInput, type ResumePolicy } from "../review/index.ts";
import { type PresenceRoomRef } from "../presence/index.ts";
import { answersFromRunInput, gotoList, toSwitchboardError } from "../runs/index.ts";
import type { ThreadRecord } from "../runs/index.ts";
import type { HubServices } from "../services.ts";
import type { ReplayResult, ThreadLog } from "../threads/index.ts";

/** What a socket session offers to `subscription.*`. */
export interface SubscriptionHost {
  /**
   * Registers the filter, computes its replay and attaches — synchronously,
   * so no event falls between the replay and the live stream.
   */
  subscribe(log: ThreadLog, filter: SubscriptionFilter, since: number | undefined): { subscriptionId: string; replay: ReplayResult; presence?: ProtocolEvent };
  unsubscribe(threadId: string, subscriptionId: string): boolean;
  /**
   * `subscription.reconnect`: re-attaches known subscriptions of this thread
   * (same ids, same filters) and replays what they missed after `since`.
   */
  restore(log: ThreadLog, subscriptionIds: readonly string[], since: number | undefined): { restored: string[]; replay: ReplayResult };
  /** `on_disconnect: "cancel"`: the run is cancelled when this connection closes. */
  cancelOnDisconnect(thread: ThreadRecord, runId: string): void;
  /**
   * `queue.subscribe`: registers a listener that holds live events back until
   * `start()` (called after the snapshot is sent), and returns the snapshot.
   */
  subscribeQueue(queue: string): Promise<{ subscriptionId: string; snapshot: ProtocolEvent[]; start: () => void }>;
  unsubscribeQueue(subscriptionId: string): boolean;
  /**
   * `threads.subscribe`: registers a watcher of the tenant's thread records
   * that holds changes back until `start()` (called after the reply is sent),
   * and returns the snapshot (the `limit` most recently updated threads).
   */
  subscribeThreads(limit: number): Promise<{ subscriptionId: string; threads: ThreadRecordJson[]; start: () => void }>;
  unsubscribeThreads(subscriptionId: string): boolean;
  /** `presence.update` for a room this connection is in (a subscribed thread or queue). */
  updatePresence(room: PresenceRoomRef, update: string): PresenceResult;
}

export interface CommandContext {
  principal: Principal;
  services: HubServices;
  /** Thread of the endpoint (`/threads/:id/...`); undefined on `/ws`. */
  urlThreadId: string | undefined;
  host: SubscriptionHost | undefined;
}

/** A reply; `replay` and then `after` are sent right after the response (subscribe), then `afterSend()` runs. */
export interface CommandReply {
  response: ProtocolResponse;
  replay?: ReplayResult;
  after?: ProtocolEvent[];
  afterSend?: () => void;
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
  "input.reassign": "answer",
  "subscription.subscribe": "read",
  "subscription.unsubscribe": "read",
  "subscription.reconnect": "read",
  "queue.subscribe": "read",
  "queue.unsubscribe": "read",
  "threads.subscribe": "read",
  "threads.unsubscribe": "read",
  "agent.getTree": "read",
  "state.get": "read",
  "state.listCheckpoints": "read",
  "presence.update": "read",
} as const satisfies Record<CommandMethod, ThreadAction>;

/** How many threads a `threads.subscribe` snapshot lists when the command does not say (as `GET /threads`). */
export const THREADS_SNAPSHOT_DEFAULT = 50;

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
    const threadless = await dispatchThreadless(command, ctx);
    if (threadless) return threadless;
    if (threadId === undefined) throw new SwitchboardError("invalid_argument", `${command.method} needs a thread_id on this endpoint`);
    if (command.method === "run.start") await checkRunStartInput(command, threadId, ctx);
    const thread = await ctx.services.runs.ensureThread(threadId, ctx.principal, CREATES_THREAD.has(command.method));
    const outcome = await dispatch(command, thread, ctx);
    if ("finish" in outcome) {
      return { finish: () => { const reply = outcome.finish(); return { ...reply, response: tag(reply.response) }; } };
    }
    return { ...outcome, response: tag(outcome.response) };
  } catch (error) {
    const e = toSwitchboardError(error);
    if (e.code === "unknown_error") ctx.services.logger.error(`${command.method} failed: ${e.message}`);
    return { response: tag(errorReply(command.id, e)) };
  }
}

/** An error response; already_answered also carries `winner` and `answered_at` at the top level. */
export function errorReply(id: number | null, e: SwitchboardError): ErrorResponse {
  const response = errorResponse(id, e.code, e.message, e.details);
  const winner = e.details?.["winner"];
  const at = e.details?.["answered_at"];
  if (e.code === "already_answered" && isActor(winner) && typeof at === "number") return { ...response, winner, answered_at: at };
  return response;
}

function isActor(value: unknown): value is { sub: string; name: string } {
  return typeof value === "object" && value !== null && "sub" in value && "name" in value && typeof value.sub === "string" && typeof value.name === "string";
}

/** Commands that address a queue, not a thread; undefined for the others. */
async function dispatchThreadless(command: ProtocolCommand, ctx: CommandContext): Promise<CommandOutcome | undefined> {
  switch (command.method) {
    case "queue.subscribe": {
      const host = ctx.host ?? unsupported(command.method, "over HTTP; use POST /queues/:queue/stream");
      const { subscriptionId, snapshot, start } = await host.subscribeQueue(command.params.queue);
      const count = (method: string) => snapshot.filter((e) => e.method === method).length;
      const result = { subscription_id: subscriptionId, items: count("input.requested"), claims: count("input.claimed") };
      return { ...success(command, result), after: snapshot, afterSend: start };
    }
    case "queue.unsubscribe": {
      const host = ctx.host ?? unsupported(command.method, "over HTTP");
      if (!host.unsubscribeQueue(command.params.subscription_id)) {
        throw new SwitchboardError("no_such_subscription", `no queue subscription ${command.params.subscription_id} on this connection`);
      }
      return success(command, {});
    }
    case "threads.subscribe": {
      const host = ctx.host ?? unsupported(command.method, "over HTTP; use GET /threads");
      const { subscriptionId, threads, start } = await host.subscribeThreads(command.params.limit ?? THREADS_SNAPSHOT_DEFAULT);
      return { ...success(command, { subscription_id: subscriptionId, threads }), afterSend: start };
    }
    case "threads.unsubscribe": {
      const host = ctx.host ?? unsupported(command.method, "over HTTP");
      if (!host.unsubscribeThreads(command.params.subscription_id)) {
        throw new SwitchboardError("no_such_subscription", `no threads subscription ${command.params.subscription_id} on this connection`);
      }
      return success(command, {});
    }
    case "presence.update": {
      const queue = command.params.queue;
      if (queue === undefined) return undefined;
      const host = ctx.host ?? unsupported(command.method, "over HTTP");
      return presenceReply(command, host.updatePresence({ tenant: ctx.principal.tenant, kind: "queue", id: queue }, command.params.update));
    }
    default:
      return undefined;
  }
}

/** The extension `payload_digest` of an answer (the schema checked its form). */
function withDigest(answer: AnswerInput, params: object): AnswerInput {
  const digest = (params as { payload_digest?: unknown }).payload_digest;
  return typeof digest === "string" ? { ...answer, expect: { payloadDigest: digest } } : answer;
}

function presenceReply(command: ProtocolCommand, result: PresenceResult): CommandReply {
  if (!result.ok) throw new SwitchboardError(result.code, result.message, { reason: result.reason });
  return success(command, {});
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
      // Every field is the schema's (hub/protocol/schema.ts): parsed, typed, defaults here.
      const cancelOnDisconnect = command.params.on_disconnect === "cancel";
      if (cancelOnDisconnect && !ctx.host) unsupported('on_disconnect "cancel"', "over HTTP; it needs a socket");
      const request = { assistantId: command.params.assistant_id, input: command.params.input, strategy: command.params.multitask_strategy ?? "reject", checkpointId: forkOf(command.params.config) };
      if (command.params.review_policy !== undefined) await applyResumePolicy(command.params.review_policy, thread, ctx);
      const answered = await answerByRunStart(request.input, request.checkpointId, thread, ctx);
      if (answered) return success(command, answered, await runs.openLog(thread));
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
      const answers: AnswerInput[] = "responses" in params
        ? params.responses.map((r) => withDigest({ interruptId: r.interrupt_id, value: r.response }, r))
        : [withDigest({ interruptId: params.interrupt_id, value: params.response }, params)];
      // Edits are stored with the (first) answer and applied by the resume that consumes it.
      const goto = gotoList(params.goto);
      const first = answers[0];
      if (first && (params.update !== undefined || goto !== undefined)) {
        first.edits = { ...(params.update === undefined ? {} : { update: params.update }), ...(goto === undefined ? {} : { goto }) };
      }
      const { items, runIds, votes } = await ctx.services.reviews.answer(ctx.principal, answers, thread.threadId);
      const answeredAt = items[0]?.answer?.at;
      const result = {
        interrupt_ids: items.map((i) => i.interruptId),
        ...(answeredAt === undefined ? {} : { answered_at: Date.parse(answeredAt) }),
        resumed: runIds.length > 0,
        ...(runIds[0] === undefined ? {} : { run_id: runIds[0] }),
        ...(votes.length === 0 ? {} : { votes }),
      };
      return success(command, result, await runs.openLog(thread));
    }
    case "input.claim": {
      const item = await ctx.services.reviews.claim(ctx.principal, command.params.interrupt_id, command.params.ttl_ms, thread.threadId);
      const until = item.claim?.until;
      return success(command, { interrupt_id: item.interruptId, expires_at: until === undefined ? 0 : Date.parse(until) });
    }
    case "input.release": {
      const item = await ctx.services.reviews.release(ctx.principal, command.params.interrupt_id, thread.threadId);
      return success(command, { interrupt_id: item.interruptId });
    }
    case "input.reassign": {
      const { interrupt_id, queue, users, roles, reason } = command.params;
      const target = { ...(queue === undefined ? {} : { queue }), ...(users === undefined ? {} : { users }), ...(roles === undefined ? {} : { roles }), ...(reason === undefined ? {} : { reason }) };
      const item = await ctx.services.reviews.reassign(ctx.principal, interrupt_id, target, thread.threadId);
      return success(command, { interrupt_id: item.interruptId, queue: item.routing.queue, users: item.routing.users, roles: item.routing.roles });
    }
    case "presence.update": {
      const host = ctx.host ?? unsupported(command.method, "over HTTP");
      return presenceReply(command, host.updatePresence({ tenant: ctx.principal.tenant, kind: "thread", id: thread.threadId }, command.params.update));
    }
    case "subscription.subscribe": {
      const host = ctx.host ?? unsupported(command.method, "over HTTP; open an event stream instead");
      const log = await runs.openLog(thread);
      const filter = filterOf(command);
      const since = command.params.since;
      return {
        finish: () => {
          const { subscriptionId, replay, presence } = host.subscribe(log, filter, since);
          const replayed = replay.kind === "events" ? replay.entries.length : 0;
          return { ...success(command, { subscription_id: subscriptionId, replayed_events: replayed }, log), replay, ...(presence ? { after: [presence] } : {}) };
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
      // Several nodes: subscriptions made on another node come from the shared directory.
      await ctx.services.subscriptions.load(subscriptions);
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
      return unsupported(command.method, "by this hub yet");
    case "queue.subscribe":
    case "queue.unsubscribe":
    case "threads.subscribe":
    case "threads.unsubscribe":
      // Handled by dispatchThreadless before a thread is looked up.
      return unsupported(command.method, "on a thread");
    default:
      return assertNever(command, "command");
  }
}

function assistantGraph(thread: ThreadRecord, ctx: CommandContext) {
  return thread.assistantId === null ? undefined : ctx.services.assistants.get(thread.assistantId)?.graph;
}

/**
 * Run admission: input the graph would refuse (a key that is not a state
 * channel, a value that is not an object) is `invalid_argument` before the
 * thread, the run or any event exists — not a run that fails at once. Input
 * that answers an interrupted thread's questions (see answerByRunStart) is
 * not state and is not checked here.
 */
async function checkRunStartInput(command: CommandOf<"run.start">, threadId: string, ctx: CommandContext): Promise<void> {
  const input: unknown = command.params.input;
  if (input === null || input === undefined) return;
  const assistant = ctx.services.assistants.get(command.params.assistant_id);
  if (!assistant) return; // runs.start answers not_found
  if (forkOf(command.params.config) === undefined && !ctx.services.runs.isBusy(threadId)) {
    const pending = await ctx.services.reviews.pendingOnThread(ctx.principal.tenant, threadId);
    if (pending.length > 0) return;
  }
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new SwitchboardError("invalid_argument", "run input must be an object of state updates (or null to continue)");
  }
  assistant.graph.checkInput(input as Record<string, unknown>);
}

/**
 * `run.start` with input on an interrupted thread answers its questions: that
 * goes through review routing like `input.respond` (same authorization, same
 * first-answer-wins), never around it. Undefined when it is a plain start.
 */
async function answerByRunStart(input: unknown, checkpointId: string | undefined, thread: ThreadRecord, ctx: CommandContext): Promise<Record<string, unknown> | undefined> {
  if (checkpointId !== undefined || input === null || input === undefined || ctx.services.runs.isBusy(thread.threadId)) return undefined;
  const pending = await ctx.services.reviews.pendingOnThread(thread.tenant, thread.threadId);
  if (pending.length === 0) return undefined;
  const answers = answersFromRunInput(input, await answerableIds(ctx, thread, pending, input)).map((a) => ({ interruptId: a.interrupt_id, value: a.response }));
  const { items, runIds } = await ctx.services.reviews.answer(ctx.principal, answers, thread.threadId);
  return { interrupt_ids: items.map((i) => i.interruptId), resumed: runIds.length > 0, ...(runIds[0] === undefined ? {} : { run_id: runIds[0] }) };
}

/**
 * The ids a `run.start` input may answer: the pending items, or — when they
 * are all actions of one multi-action interrupt — that interrupt, so a bare
 * `{ decisions: [...] }` answers it (the review service splits it per action).
 */
async function answerableIds(ctx: CommandContext, thread: ThreadRecord, pending: readonly string[], input: unknown): Promise<Set<string>> {
  const items = await ctx.services.reviews.itemsOnThread(thread.tenant, thread.threadId);
  const groups = new Set(items.filter((i) => pending.includes(i.interruptId)).map((i) => i.action?.interruptId));
  const [group] = groups;
  if (groups.size !== 1 || group === undefined) return new Set(pending);
  // A map keyed by the items (or the interrupt) still answers those; anything else is the interrupt's answer.
  const keys = typeof input === "object" && input !== null && !Array.isArray(input) ? Object.keys(input) : [];
  const keyed = keys.length > 0 && keys.every((k) => k === group || pending.includes(k));
  return keyed ? new Set([...pending, group]) : new Set([group]);
}

/** Extension: `run.start { review_policy: "eager" | "batch" }` sets the thread's resume policy (kept in its metadata). */
async function applyResumePolicy(policy: ResumePolicy, thread: ThreadRecord, ctx: CommandContext): Promise<void> {
  await ctx.services.store.updateThread(thread.threadId, { metadata: { ...thread.metadata, [RESUME_POLICY_KEY]: policy } });
  ctx.services.reviews.setPolicy(thread.threadId, policy);
}

/** The official SDK folds `run.start({ forkFrom })` into `config.configurable.checkpoint_id`. */
function forkOf(config: Record<string, unknown> | undefined): string | undefined {
  const configurable = config?.["configurable"];
  if (typeof configurable !== "object" || configurable === null || !("checkpoint_id" in configurable)) return undefined;
  const id = configurable.checkpoint_id;
  if (typeof id !== "string" || id === "") throw new SwitchboardError("invalid_argument", "config.configurable.checkpoint_id must be a checkpoint id");
  return id;
}


function filterOf(command: CommandOf<"subscription.subscribe">): SubscriptionFilter {
  const { channels, namespaces, depth } = command.params;
  return { channels, namespaces, depth };
}

