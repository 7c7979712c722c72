/**
 * Strict resume (DESIGN.md): turns Command({ resume }) into answers by
 * interrupt id, or fails with a named error — never a silent no-op.
 */
import type { Checkpointer, CheckpointTuple } from "../checkpoint/types.ts";
import { RESUME } from "../constants.ts";
import {
  AmbiguousResumeError,
  InterruptAlreadyAnsweredError,
  NothingToResumeError,
  UnknownInterruptError,
} from "../errors.ts";
import type { Interrupt } from "../types.ts";
import { INTERRUPT_ID_PATTERN } from "./ids.ts";
import { groupPendingWrites, pendingInterruptsOf } from "./pending.ts";

/** A resume map is a non-empty plain object whose keys are all interrupt ids. */
export function isResumeMap(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => INTERRUPT_ID_PATTERN.test(k));
}

function pendingInterrupts(tuple: CheckpointTuple | undefined): Interrupt[] {
  if (!tuple) return [];
  return [...groupPendingWrites(tuple.pendingWrites).values()].flatMap(pendingInterruptsOf);
}

/** Whether any task of the thread (any namespace) consumed an answer for this id. */
async function wasAnswered(saver: Checkpointer, threadId: string, id: string): Promise<boolean> {
  for await (const tuple of saver.list({ threadId })) {
    for (const [, channel, value] of tuple.pendingWrites) {
      if (channel === RESUME && (value as Interrupt[]).some((r) => r.id === id)) return true;
    }
  }
  return false;
}

/** `tuple` is the checkpoint the run continues from (loaded once by the caller). */
export async function resolveResume(
  saver: Checkpointer,
  threadId: string,
  tuple: CheckpointTuple | undefined,
  resume: unknown,
): Promise<Map<string, unknown>> {
  const pending = pendingInterrupts(tuple);
  const pendingIds = new Set(pending.map((i) => i.id));
  if (isResumeMap(resume)) {
    for (const id of Object.keys(resume)) {
      if (pendingIds.has(id)) continue;
      if (await wasAnswered(saver, threadId, id)) throw new InterruptAlreadyAnsweredError(id);
      if (pending.length === 0) throw new NothingToResumeError(threadId);
      throw new UnknownInterruptError(id, [...pendingIds]);
    }
    return new Map(Object.entries(resume));
  }
  if (pending.length === 0) throw new NothingToResumeError(threadId);
  if (pending.length > 1) throw new AmbiguousResumeError([...pendingIds]);
  return new Map([[(pending[0] as Interrupt).id, resume]]);
}
