/** Deterministic ids for tasks and interrupts (stable across replays and restarts). */
import { createHash } from "node:crypto";

function digest(parts: readonly (string | number)[]): string {
  return createHash("sha256").update(parts.join("\u0000")).digest("hex");
}

/** Task id: a function of (checkpoint, namespace, step, node, path); UUID-shaped. */
export function taskId(checkpointId: string, ns: string, step: number, name: string, path: string): string {
  const h = digest([checkpointId, ns, step, name, path]);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
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
