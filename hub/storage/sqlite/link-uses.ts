/**
 * SqliteLinkUses: used answer-link nonces in the hub's SQLite file (table
 * hub_answer_link_uses, migration 7). The nonce is the primary key: the
 * first INSERT wins, in the database, whichever connection or process tries.
 */
import type Database from "better-sqlite3";
import { requireTables } from "../../../engine/checkpoint/sqlite-open.ts";
import type { LinkUse, LinkUses } from "../../review/links/uses.ts";
import { LINK_TABLES } from "./migrations.ts";
import { openHubDatabase } from "./open.ts";

interface Row {
  nonce: string;
  tenant: string;
  interrupt_id: string;
  sub: string;
  used_at: string;
}

export class SqliteLinkUses implements LinkUses {
  readonly db: Database.Database;
  readonly #ownsDb: boolean;
  readonly #insert: Database.Statement<[string, string, string, string, string]>;
  readonly #select: Database.Statement<[string], Row>;
  readonly #delete: Database.Statement<[string]>;
  readonly #prune: Database.Statement<[string, number]>;

  constructor(pathOrDb: string | Database.Database) {
    this.#ownsDb = typeof pathOrDb === "string";
    this.db = typeof pathOrDb === "string" ? openHubDatabase(pathOrDb) : pathOrDb;
    if (!this.#ownsDb) requireTables(this.db, "SqliteLinkUses", LINK_TABLES);
    this.#insert = this.db.prepare("INSERT INTO hub_answer_link_uses (nonce, tenant, interrupt_id, sub, used_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (nonce) DO NOTHING");
    this.#select = this.db.prepare("SELECT nonce, tenant, interrupt_id, sub, used_at FROM hub_answer_link_uses WHERE nonce = ?");
    this.#delete = this.db.prepare("DELETE FROM hub_answer_link_uses WHERE nonce = ?");
    this.#prune = this.db.prepare("DELETE FROM hub_answer_link_uses WHERE nonce IN (SELECT nonce FROM hub_answer_link_uses WHERE used_at < ? ORDER BY used_at LIMIT ?)");
  }

  async use(use: Omit<LinkUse, "usedAt">, now: number): Promise<{ ok: true } | { ok: false; first: LinkUse }> {
    if (this.#insert.run(use.nonce, use.tenant, use.interruptId, use.sub, new Date(now).toISOString()).changes === 1) return { ok: true };
    const row = this.#select.get(use.nonce);
    if (row === undefined) throw new Error(`answer link ${use.nonce}: neither inserted nor found`);
    return { ok: false, first: { nonce: row.nonce, tenant: row.tenant, interruptId: row.interrupt_id, sub: row.sub, usedAt: row.used_at } };
  }

  async find(nonce: string): Promise<LinkUse | undefined> {
    const row = this.#select.get(nonce);
    return row && { nonce: row.nonce, tenant: row.tenant, interruptId: row.interrupt_id, sub: row.sub, usedAt: row.used_at };
  }

  async release(nonce: string): Promise<void> {
    this.#delete.run(nonce);
  }

  async prune(before: number, limit: number): Promise<number> {
    return this.#prune.run(new Date(before).toISOString(), limit).changes;
  }

  async close(): Promise<void> {
    if (this.#ownsDb && this.db.open) this.db.close();
  }
}
