/**
 * A LangGraph run request, admitted by the same run manager and review
 * routing as the thread protocol's `run.start` and `input.respond`:
 *
 * - `input` (or a `command` without `resume`) starts a run (multitask
 *   strategy, fork from `checkpoint_id`, per-run breakpoints and metadata);
 * - `command.resume` is an answer: a value for the thread's one pending
 *   interrupt, or a map keyed by interrupt id. It goes through the review
 *   service — candidates, claims, self-approval, first authorized answer wins
 *   (`already_answered`, HTTP 409, names the winner) — is broadcast as
 *   `input.answered`, and the resume it makes due runs once. `update` and
 *   `goto` are stored with the answer and applied by that resume, as with
 *   `input.respond`.
 */
import type { Principal } from "../../auth/index.ts";
import { SwitchboardError, isRecord } from "../../protocol/index.ts";
import { PENDING_STATUSES, type AnswerInput, type ReviewItem } from "../../review/index.ts";
import { gotoList, type MultitaskStrategy, type RunRecord, type ThreadRecord } from "../../runs/index.ts";
import type { HubServices } from "../../services.ts";
import { requirePermission } from "./http.ts";
import type { RunBody } from "./schemas.ts";

/** A run started (or queued), or answers accepted whose resume waits for the thread's other answers. */
export type Admission = { kind: "run"; run: RunRecord } | { kind: "waiting"; accepted: string[]; pending: string[] };

export async function admitRun(services: HubServices, thread: ThreadRecord, body: RunBody, principal: Principal): Promise<Admission> {
  if (body.webhook) throw new SwitchboardError("not_supported", "webhooks are not supported yet: follow the run with runs.join or runs.joinStream");
  if (body.after_seconds) throw new SwitchboardError("not_supported", "delayed runs (after_seconds) are not supported");
  const command = body.command ?? undefined;
  if (command && "resume" in command) return resume(services, thread, command, principal);
  requirePermission(principal, "operate");
  if (command?.goto !== undefined && command.goto !== null) {
    throw new SwitchboardError("not_supported", "command.goto needs command.resume here (it routes the resumed step); use updateState to move a thread that is not interrupted");
  }
  // A Command with only `update` is input, as in LangGraph.
  const update = command?.update === undefined || command.update === null ? undefined : recordOf(command.update);
  const input = update ?? body.input ?? null;
  const strategy: MultitaskStrategy = body.multitask_strategy ?? "reject";
  const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id ?? configuredCheckpoint(body.config?.configurable);
  const options = {
    ...(body.interrupt_before ? { interruptBefore: body.interrupt_before } : {}),
    ...(body.interrupt_after ? { interruptAfter: body.interrupt_after } : {}),
    ...(body.metadata ? { metadata: { ...body.metadata } } : {}),
    ...(body.config?.recursion_limit ? { recursionLimit: body.config.recursion_limit } : {}),
    ...(body.context === undefined ? {} : { context: body.context }),
  };
  const run = await services.runs.start(thread, { assistantId: body.assistant_id, input, strategy, checkpointId: checkpointId ?? undefined, options }, principal);
  return { kind: "run", run };
}

async function resume(services: HubServices, thread: ThreadRecord, command: NonNullable<RunBody["command"]>, principal: Principal): Promise<Admission> {
  requirePermission(principal, "answer");
  const { reviews, store } = services;
  const items = await reviews.itemsOnThread(thread.tenant, thread.threadId);
  const answers = answersOf(command.resume, items);
  const update = command.update === undefined || command.update === null ? undefined : recordOf(command.update);
  const goto = command.goto === undefined || command.goto === null ? undefined : gotoList(command.goto);
  // The edits are stored with the (first) answer and applied by the resume that consumes it.
  const [first] = answers;
  if (first && (update !== undefined || goto !== undefined)) first.edits = { ...(update === undefined ? {} : { update }), ...(goto === undefined ? {} : { goto }) };
  const outcome = await reviews.answer(principal, answers, thread.threadId);
  const [runId] = outcome.runIds;
  const run = runId === undefined ? undefined : await store.getRun(runId);
  if (run) return { kind: "run", run };
  const pending = await reviews.pendingOnThread(thread.tenant, thread.threadId);
  return { kind: "waiting", accepted: outcome.items.map((i) => i.interruptId), pending };
}

/**
 * A resume map names interrupts the thread has asked (pending or not: an
 * answered id then loses with already_answered). Anything else is a value
 * for the one pending interrupt — or, when none is pending any more, for the
 * question answered last, so a resume that lost the race learns who won.
 */
function answersOf(resume: unknown, items: readonly ReviewItem[]): AnswerInput[] {
  // A multi-action interrupt is known by its own id too (the service splits its answer per action).
  const known = new Set(items.flatMap((i) => (i.action === undefined ? [i.interruptId] : [i.interruptId, i.action.interruptId])));
  if (isRecord(resume)) {
    const keys = Object.keys(resume);
    if (keys.length > 0 && keys.every((k) => known.has(k))) return Object.entries(resume).map(([interruptId, value]) => ({ interruptId, value }));
  }
  const pending = items.filter((i) => (PENDING_STATUSES as readonly string[]).includes(i.status));
  // The pending items all of one multi-action interrupt: the value answers that interrupt (`{ decisions }`).
  const groups = new Set(pending.map((i) => i.action?.interruptId));
  const [group] = groups;
  if (group !== undefined && groups.size === 1) return [{ interruptId: group, value: resume }];
  const [only, ...more] = pending;
  if (only && more.length === 0) return [{ interruptId: only.interruptId, value: resume }];
  if (pending.length > 1) {
    throw new SwitchboardError("invalid_argument", `the thread has ${pending.length} pending interrupts; resume with a map keyed by interrupt id`, { pending: pending.map((i) => i.interruptId) });
  }
  const answered = items.filter((i) => i.answer !== null).sort((a, b) => (a.answer?.at ?? "").localeCompare(b.answer?.at ?? ""));
  const last = answered.at(-1);
  if (last) return [{ interruptId: last.interruptId, value: resume }];
  throw new SwitchboardError("nothing_pending", "the thread has no pending interrupt to resume");
}

function recordOf(update: Record<string, unknown> | Array<[string, unknown]>): Record<string, unknown> {
  return Array.isArray(update) ? Object.fromEntries(update) : { ...update };
}

/** `config.configurable.checkpoint_id`, where LangGraph clients also put a fork point. */
function configuredCheckpoint(configurable: Record<string, unknown> | null | undefined): string | undefined {
  const id = configurable?.["checkpoint_id"];
  if (id === undefined || id === null) return undefined;
  if (typeof id !== "string" || id === "") throw new SwitchboardError("invalid_argument", "config.configurable.checkpoint_id must be a checkpoint id");
  return id;
}
