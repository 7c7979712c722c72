/**
 * PostgresRunLeases: run leases in the hub's Postgres tables, on the
 * database's clock (`now()`), never a node's. Tokens come from one sequence,
 * so a later holder always has a larger token. Takeover is one UPDATE over
 * lapsed rows with SKIP LOCKED: each lapsed lease goes to exactly one node.
 * `guard` is the fencing check a node's checkpoint writes run in their own
 * transaction: it share-locks the lease row, so a takeover cannot commit
 * between the check and the write.
 */
import type { AcquireResult, LeaseHolder, RunLeases, TakenLease } from "../../runs/leases.ts";
import { LeaseLostError } from "../../runs/leases.ts";
import type { PostgresDatabase } from "./database.ts";

interface Row {
  run_id: string;
  node_id: string;
  token: string;
  expired: boolean;
}

const ms = (param: string): string => `now() + (${param}::text || ' milliseconds')::interval`;

export class PostgresRunLeases implements RunLeases {
  readonly #db: PostgresDatabase;
  readonly #t: string;

  constructor(db: PostgresDatabase) {
    this.#db = db;
    this.#t = `${db.q}.hub_run_leases`;
  }

  async acquire(threadId: string, runId: string, nodeId: string, ttlMs: number): Promise<AcquireResult> {
    const { rows } = await this.#db.pool.query<{ token: string }>(
      `INSERT INTO ${this.#t} (thread_id, run_id, node_id, token, expires_at)
       VALUES ($1, $2, $3, nextval('${this.#db.q}.hub_lease_tokens'), ${ms("$4")})
       ON CONFLICT (thread_id) DO NOTHING RETURNING token`,
      [threadId, runId, nodeId, ttlMs],
    );
    const token = rows[0]?.token;
    if (token !== undefined) return { ok: true, token: Number(token) };
    const holder = await this.holder(threadId);
    // Released between the two statements: try once more.
    if (holder === undefined) return this.acquire(threadId, runId, nodeId, ttlMs);
    return { ok: false, holder };
  }

  async renew(threadId: string, token: number, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.#db.pool.query(`UPDATE ${this.#t} SET expires_at = ${ms("$3")} WHERE thread_id = $1 AND token = $2`, [threadId, token, ttlMs]);
    return rowCount === 1;
  }

  async release(threadId: string, token: number): Promise<void> {
    await this.#db.pool.query(`DELETE FROM ${this.#t} WHERE thread_id = $1 AND token = $2`, [threadId, token]);
  }

  async handOver(threadId: string, token: number): Promise<void> {
    await this.#db.pool.query(`UPDATE ${this.#t} SET expires_at = now() - interval '1 millisecond' WHERE thread_id = $1 AND token = $2`, [threadId, token]);
  }

  async takeOver(nodeId: string, ttlMs: number, limit: number): Promise<TakenLease[]> {
    const { rows } = await this.#db.pool.query<{ thread_id: string; run_id: string; token: string; previous_node_id: string }>(
      `UPDATE ${this.#t} l SET node_id = $1, previous_node_id = l.node_id,
         token = nextval('${this.#db.q}.hub_lease_tokens'), expires_at = ${ms("$2")}
       WHERE l.thread_id IN (SELECT thread_id FROM ${this.#t} WHERE expires_at <= now()
                             ORDER BY expires_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING l.thread_id, l.run_id, l.token, l.previous_node_id`,
      [nodeId, ttlMs, limit],
    );
    return rows.map((r) => ({ threadId: r.thread_id, runId: r.run_id, token: Number(r.token), previousNodeId: r.previous_node_id }));
  }

  async holder(threadId: string): Promise<LeaseHolder | undefined> {
    const { rows } = await this.#db.pool.query<Row>(
      `SELECT run_id, node_id, token, expires_at <= now() AS expired FROM ${this.#t} WHERE thread_id = $1`,
      [threadId],
    );
    const row = rows[0];
    return row && { runId: row.run_id, nodeId: row.node_id, token: Number(row.token), expired: row.expired };
  }

  /**
   * The fencing check of a write, inside the write's transaction: throws
   * LeaseLostError unless `token` still holds the thread's lease, unlapsed.
   */
  static async guard(query: (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }>, q: string, threadId: string, token: number): Promise<void> {
    const { rows } = await query(
      `SELECT 1 FROM ${q}.hub_run_leases WHERE thread_id = $1 AND token = $2 AND expires_at > now() FOR SHARE`,
      [threadId, token],
    );
    if (rows.length === 0) throw new LeaseLostError(`this node's lease on thread ${threadId} (token ${token}) is gone: another node took the run over`);
  }
}
