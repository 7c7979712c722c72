/** Builders of store inputs for the hub store conformance suite. */
import { expect } from "vitest";
import type { HubStore } from "../../../../hub/runs/store.ts";

export type NewThread = Parameters<HubStore["createThread"]>[0];
export type NewRun = Parameters<HubStore["createRun"]>[0];

export function newThread(threadId: string, overrides: Partial<NewThread> = {}): NewThread {
  return { threadId, tenant: "acme", assistantId: null, status: "idle", metadata: {}, ...overrides };
}

export function newRun(runId: string, threadId: string, overrides: Partial<NewRun> = {}): NewRun {
  return {
    runId,
    threadId,
    tenant: "acme",
    assistantId: "agent",
    status: "pending",
    startedBy: "user-1",
    multitaskStrategy: "reject",
    input: { messages: [{ role: "user", content: "hi" }] },
    ...overrides,
  };
}

/** A timestamp in exactly the form Date#toISOString writes. */
export function expectIso(value: unknown): void {
  expect(value).toEqual(expect.any(String));
  expect(new Date(String(value)).toISOString()).toBe(value);
}
