/** Reading a checkpoint's pending writes back into per-task records. */
import type { PendingWrite } from "../checkpoint/types.ts";
import { ERROR, INTERRUPT, NO_WRITES, RESUME, SPECIAL_WRITE_CHANNELS } from "../constants.ts";
import type { Interrupt } from "../types.ts";
import type { Write } from "./writes.ts";

export interface TaskRecord {
  /** State/edge writes of a finished task. */
  writes: Write[];
  /** The task finished (it has writes, or it wrote nothing on purpose). */
  done: boolean;
  /** Interrupts the task raised the last time it paused. */
  interrupts: Interrupt[];
  /** Answers the task consumed so far, in interrupt() order. */
  resume: Interrupt[];
  error: string | undefined;
}

export function groupPendingWrites(pending: readonly PendingWrite[]): Map<string, TaskRecord> {
  const records = new Map<string, TaskRecord>();
  for (const [taskId, channel, value] of pending) {
    let record = records.get(taskId);
    if (!record) records.set(taskId, (record = { writes: [], done: false, interrupts: [], resume: [], error: undefined }));
    if (channel === INTERRUPT) record.interrupts = value as Interrupt[];
    else if (channel === RESUME) record.resume = value as Interrupt[];
    else if (channel === ERROR) record.error = value as string;
    else if (channel === NO_WRITES) record.done = true;
    else if (!SPECIAL_WRITE_CHANNELS.has(channel)) {
      record.writes.push([channel, value]);
      record.done = true;
    }
  }
  return records;
}

/** Interrupts of a task that still wait for an answer. */
export function pendingInterruptsOf(record: TaskRecord): Interrupt[] {
  if (record.done) return [];
  if (record.resume.length === 0) return record.interrupts;
  const answered = new Set(record.resume.map((r) => r.id));
  return record.interrupts.filter((i) => !answered.has(i.id));
}
