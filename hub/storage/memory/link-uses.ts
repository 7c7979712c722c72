/** MemoryLinkUses: used answer-link nonces in process memory (one process: a Map is atomic enough). */
import type { LinkUse, LinkUses } from "../../review/links/uses.ts";

export class MemoryLinkUses implements LinkUses {
  readonly #uses = new Map<string, LinkUse>();

  async use(use: Omit<LinkUse, "usedAt">, now: number): Promise<{ ok: true } | { ok: false; first: LinkUse }> {
    const first = this.#uses.get(use.nonce);
    if (first !== undefined) return { ok: false, first: { ...first } };
    this.#uses.set(use.nonce, { ...use, usedAt: new Date(now).toISOString() });
    return { ok: true };
  }

  async find(nonce: string): Promise<LinkUse | undefined> {
    const use = this.#uses.get(nonce);
    return use && { ...use };
  }

  async release(nonce: string): Promise<void> {
    this.#uses.delete(nonce);
  }

  async prune(before: number, limit: number): Promise<number> {
    const cutoff = new Date(before).toISOString();
    const old = [...this.#uses.values()].filter((u) => u.usedAt < cutoff).sort((a, b) => (a.usedAt < b.usedAt ? -1 : 1)).slice(0, limit);
    for (const use of old) this.#uses.delete(use.nonce);
    return old.length;
  }

  async close(): Promise<void> {}
}
