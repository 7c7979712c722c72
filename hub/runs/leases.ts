/**
 * The run lease port: with several nodes, a thread's active run executes on
 * the one node holding the thread's lease. A lease has a token that grows with
 * every new holder (a fencing token: writes carry it, and an older one is
 * refused), is renewed by heartbeat, and — when its node stops renewing it
 * (killed, paused, cut off) — expires by the store's clock, never the
 * holder's, and is taken over by exactly one other node.
 *
 * Adapters: Postgres (hub/storage/postgres/), memory (hub/storage/memory/,
 * tests). One node needs none: its RunManager is the only one running runs.
 */

export interface LeaseHolder {
  runId: string;
  nodeId: string;
  token: number;
  /** The store's clock says it lapsed (its node stopped renewing it). */
  expired: boolean;
}

export interface TakenLease {
  threadId: string;
  runId: string;
  /** The new token (this node's). */
  token: number;
  previousNodeId: string;
}

export type AcquireResult = { ok: true; token: number } | { ok: false; holder: LeaseHolder };

export interface RunLeases {
  /** Takes the thread for a run of this node, unless some run holds it (even a lapsed one: it awaits takeover). */
  acquire(threadId: string, runId: string, nodeId: string, ttlMs: number): Promise<AcquireResult>;
  /** Extends our lease; false when it is not ours any more (taken over: this node is fenced). */
  renew(threadId: string, token: number, ttlMs: number): Promise<boolean>;
  /** Ends our lease (the run ended); a no-op when it is not ours. */
  release(threadId: string, token: number): Promise<void>;
  /** Lets our lease lapse now, so another node takes the run over at once (a node shutting down). */
  handOver(threadId: string, token: number): Promise<void>;
  /** Lapsed leases, each given to exactly one caller with a new token. */
  takeOver(nodeId: string, ttlMs: number, limit: number): Promise<TakenLease[]>;
  holder(threadId: string): Promise<LeaseHolder | undefined>;
}

/** The run lost its lease: another node took it over. */
export class LeaseLostError extends Error {
  readonly code = "LEASE_LOST";
  override readonly name = "LeaseLostError";
}
