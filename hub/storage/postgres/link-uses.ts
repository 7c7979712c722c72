/**
 * PostgresLinkUses: used answer-link nonces shared by every node (table
 * hub_answer_link_uses, hub migration 7). The nonce is the primary key: the
 * first INSERT wins across nodes; the others read who used it.
 */
import type { LinkUse, LinkUses } from "../../review/links/uses.ts";
import type { PostgresDatabase } from "./database.ts";

interface Row {
  nonce: string;
  tenant: string;
  interrupt_id: string;
  sub: string;
  used_at: string;
}

export class PostgresLinkUses implements LinkUses {
  readonly #db: PostgresDatabase;
  readonly #t: string;

  constructor(db: PostgresDatabase) {
    this.#db = db;
    this.#t = `${db.q}.hub_answer_link_uses`;
  }

  async use(use: Omit<LinkUse, "usedAt">, now: number): Promise<{ ok: true } | { ok: false; first: LinkUse }> {
    const { rowCount } = await this.#db.pool.query(`INSERT INTO ${this.#t} (nonce, tenant, interrupt_id, sub, used_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (nonce) DO NOTHING`, [
      use.nonce,
      use.tenant,
      use.interruptId,
      use.sub,
      new Date(now).toISOString(),
    ]);
    if (rowCount === 1) return { ok: true };
    const { rows } = await this.#db.pool.query<Row>(`SELECT nonce, tenant, interrupt_id, sub, used_at FROM ${this.#t} WHERE nonce = $1`, [use.nonce]);
    const row = rows[0];
    if (row === undefined) throw new Error(`answer link ${use.nonce}: neither inserted nor found`);
    return { ok: false, first: { nonce: row.nonce, tenant: row.tenant, interruptId: row.interrupt_id, sub: row.sub, usedAt: row.used_at } };
  }

  async find(nonce: string): Promise<LinkUse | undefined> {
    const { rows } = await this.#db.pool.query<Row>(`SELECT nonce, tenant, interrupt_id, sub, used_at FROM ${this.#t} WHERE nonce = $1`, [nonce]);
    const row = rows[0];
    return row && { nonce: row.nonce, tenant: row.tenant, interruptId: row.interrupt_id, sub: row.sub, usedAt: row.used_at };
  }

  async release(nonce: string): Promise<void> {
    await this.#db.pool.query(`DELETE FROM ${this.#t} WHERE nonce = $1`, [nonce]);
  }

  async prune(before: number, limit: number): Promise<number> {
    const { rowCount } = await this.#db.pool.query(`DELETE FROM ${this.#t} WHERE nonce IN (SELECT nonce FROM ${this.#t} WHERE used_at < $1 ORDER BY used_at LIMIT $2)`, [new Date(before).toISOString(), limit]);
    return rowCount ?? 0;
  }

  async close(): Promise<void> {}
}
