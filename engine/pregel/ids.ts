/** Deterministic ids for tasks and interrupts (stable across replays and restarts). */
import { createHash } from "node:crypto";

function digest(parts: readonly (string | number)[]): string {
  return createHash("sha256").update(parts.join("\u0000")).digest("hex");
}

const UUID_SHAPE = /^(.{8})(.{4})(.{4})(.{4})(.{12}).*$/;

/** Task id: a function of (checkpoint, namespace, step, node, path); UUID-shaped. */
export function taskId(checkpointId: string, ns: string, step: number, name: string, path: string): string {
  // V8 returns this as a cons string of parts (flattened only when something
  // reads it as a whole); the in-memory saver stores its own compact text of
  // the writes, so no per-thread copy of these parts stays alive.
  return digest([checkpointId, ns, step, name, path]).replace(UUID_SHAPE, "$1-$2-$3-$4-$5");
}

/**
 * Interrupt id: unique per (thread, checkpoint, task, index) — the k-th
 * interrupt() of a task gets its own id, so an answer can never alias a later
 * question (DESIGN.md "Interrupts and resume").
 */
export function interruptId(threadId: string, checkpointId: string, ns: string, task: string, index: number): string {
  return digest([threadId, checkpointId, ns, task, index]).slice(0, 32);
}

export const INTERRUPT_ID_PATTERN = /^[0-9a-f]{32}$/;
