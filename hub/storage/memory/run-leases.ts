/** MemoryRunLeases: the run lease port in one process (tests; several hubs in one process), on Date.now(). */
import type { AcquireResult, LeaseHolder, RunLeases, TakenLease } from "../../runs/leases.ts";

interface Row {
  runId: string;
  nodeId: string;
  token: number;
  expiresAt: number;
}

export class MemoryRunLeases implements RunLeases {
  readonly #rows = new Map<string, Row>();
  readonly #now: () => number;
  #tokens = 0;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async acquire(threadId: string, runId: string, nodeId: string, ttlMs: number): Promise<AcquireResult> {
    const row = this.#rows.get(threadId);
    if (row !== undefined) return { ok: false, holder: this.#holder(row) };
    const token = ++this.#tokens;
    this.#rows.set(threadId, { runId, nodeId, token, expiresAt: this.#now() + ttlMs });
    return { ok: true, token };
  }

  async renew(threadId: string, token: number, ttlMs: number): Promise<boolean> {
    const row = this.#rows.get(threadId);
    if (row?.token !== token) return false;
    row.expiresAt = this.#now() + ttlMs;
    return true;
  }

  async release(threadId: string, token: number): Promise<void> {
    if (this.#rows.get(threadId)?.token === token) this.#rows.delete(threadId);
  }

  async handOver(threadId: string, token: number): Promise<void> {
    const row = this.#rows.get(threadId);
    if (row?.token === token) row.expiresAt = this.#now() - 1;
  }

  async takeOver(nodeId: string, ttlMs: number, limit: number): Promise<TakenLease[]> {
    const now = this.#now();
    const taken: TakenLease[] = [];
    const lapsed = [...this.#rows.entries()].filter(([, row]) => row.expiresAt <= now).sort(([, a], [, b]) => a.expiresAt - b.expiresAt);
    for (const [threadId, row] of lapsed.slice(0, limit)) {
      const previousNodeId = row.nodeId;
      row.nodeId = nodeId;
      row.token = ++this.#tokens;
      row.expiresAt = now + ttlMs;
      taken.push({ threadId, runId: row.runId, token: row.token, previousNodeId });
    }
    return taken;
  }

  async holder(threadId: string): Promise<LeaseHolder | undefined> {
    const row = this.#rows.get(threadId);
    return row && this.#holder(row);
  }

  #holder(row: Row): LeaseHolder {
    return { runId: row.runId, nodeId: row.nodeId, token: row.token, expired: row.expiresAt <= this.#now() };
  }
}
