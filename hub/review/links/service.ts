/**
 * Answer links end to end: mint a link for a candidate of a pending item
 * (admins, or the hub itself for webhooks), open it (the item, for the link's
 * holder), answer through it once. The holder answers as the candidate the
 * link names, through the same routing, policy and first-answer-wins as
 * everyone (ReviewCoordinator.answer); the nonce's single use is decided by
 * the store (LinkUses) before the answer is tried.
 */
import { ADMIN_ROLE, type ActionSource, type Principal } from "../../auth/index.ts";
import { SwitchboardError } from "../../protocol/index.ts";
import type { ReviewCoordinator } from "../coordinator.ts";
import { mayAnswer } from "../policy.ts";
import { parseDuration } from "../routing.ts";
import type { ReviewStore } from "../store.ts";
import type { ReviewItem } from "../types.ts";
import type { AnswerInput } from "../service.ts";
import { checkLink, mintLink, type LinkClaims } from "./token.ts";
import type { LinkUses } from "./uses.ts";

/** `HubConfig.answerLinks`. */
export interface AnswerLinksConfig {
  /** HMAC key of the links (≥ 32 bytes); default: derived from `jwtSecret`. */
  secret?: string;
  /** How long a link is valid (ms or "2h"; default 24 h). */
  ttl?: number | string;
  /** The web app's public URL (links are `<baseUrl>/#/link/<interrupt>/<token>`); without it only the path is given. */
  baseUrl?: string;
}

export const DEFAULT_LINK_TTL_MS = 24 * 3_600_000;
export const MAX_LINK_TTL_MS = 30 * 24 * 3_600_000;

export interface MintedLink {
  interrupt_id: string;
  sub: string;
  expires_at: number;
  token: string;
  path: string;
  url?: string;
}

/** Refusals after which the link is spent: the item is over, or over for its holder. */
const SPENDS_LINK: ReadonlySet<string> = new Set(["already_answered", "already_voted", "interrupt_expired", "interrupt_cancelled", "permission_denied", "no_such_interrupt"]);

/** Why a link is refused: data for the page. */
function refused(link: "invalid" | "expired" | "used" | "other_item", message: string, extra: Record<string, unknown> = {}): SwitchboardError {
  return new SwitchboardError("permission_denied", message, { link, ...extra });
}

export class AnswerLinks {
  readonly #key: Buffer;
  readonly #ttlMs: number;
  readonly #baseUrl: string | undefined;
  readonly #uses: LinkUses;
  readonly #store: ReviewStore;
  readonly #reviews: ReviewCoordinator;
  readonly #clock: () => number;

  constructor(options: { key: Buffer; config: AnswerLinksConfig; uses: LinkUses; store: ReviewStore; reviews: ReviewCoordinator; clock?: () => number }) {
    this.#key = options.key;
    this.#ttlMs = (options.config.ttl === undefined ? undefined : parseDuration(options.config.ttl)) ?? DEFAULT_LINK_TTL_MS;
    this.#baseUrl = options.config.baseUrl?.replace(/\/+$/, "");
    this.#uses = options.uses;
    this.#store = options.store;
    this.#reviews = options.reviews;
    this.#clock = options.clock ?? Date.now;
  }

  /** A link for `sub` (a candidate of the pending item), minted by the hub (webhooks) or for an admin. */
  mintFor(item: ReviewItem, candidate: { sub: string; name?: string; roles?: readonly string[] }, ttlMs: number = this.#ttlMs): MintedLink {
    const roles = ["reviewer", ...(candidate.roles ?? []).filter((r) => r !== ADMIN_ROLE && r !== "reviewer")];
    const holder: Principal = { sub: candidate.sub, name: candidate.name ?? candidate.sub, tenant: item.tenant, roles };
    const verdict = mayAnswer(holder, item, this.#clock());
    if (!verdict.ok && verdict.code !== "claim_held") throw new SwitchboardError("invalid_argument", `no link for ${candidate.sub}: ${verdict.message}`, { interrupt_id: item.interruptId });
    const expiresAt = this.#clock() + Math.min(ttlMs, MAX_LINK_TTL_MS);
    const { token } = mintLink(this.#key, { tenant: item.tenant, interruptId: item.interruptId, sub: holder.sub, name: holder.name, roles, expiresAt });
    const path = `/#/link/${encodeURIComponent(item.interruptId)}/${token}`;
    return { interrupt_id: item.interruptId, sub: holder.sub, expires_at: expiresAt, token, path, ...(this.#baseUrl === undefined ? {} : { url: `${this.#baseUrl}${path}` }) };
  }

  /** REST: an admin of the item's tenant mints a link for a candidate. */
  async mint(principal: Principal, interruptId: string, body: { sub: string; name?: string; roles?: readonly string[]; ttlMs?: number }): Promise<MintedLink> {
    if (!principal.roles.includes(ADMIN_ROLE)) throw new SwitchboardError("permission_denied", `minting answer links needs the "${ADMIN_ROLE}" role; ${principal.sub} has [${principal.roles.join(", ")}]`);
    const item = await this.#store.getItem(interruptId);
    if (item === undefined || item.tenant !== principal.tenant) throw new SwitchboardError("no_such_interrupt", `no review item for interrupt ${interruptId}`, { interrupt_id: interruptId });
    return this.mintFor(item, body, body.ttlMs ?? this.#ttlMs);
  }

  /** The claims of a link for this item, or the refusal (tampered, another item's, expired, used). */
  async #check(interruptId: string, token: string): Promise<LinkClaims> {
    const checked = checkLink(this.#key, token, this.#clock());
    if (!checked.ok && checked.reason === "invalid") throw refused("invalid", "this link is not valid (it was changed or is not a Switchboard answer link)");
    const claims = checked.claims;
    if (claims === undefined) throw refused("invalid", "this link is not valid");
    if (claims.interruptId !== interruptId) throw refused("other_item", "this link is for another item");
    if (!checked.ok) throw refused("expired", `this link expired at ${new Date(claims.expiresAt).toISOString()}`, { expired_at: claims.expiresAt });
    return claims;
  }

  /** What the link's page shows: the item and who the link is for; refused when used. */
  async open(interruptId: string, token: string): Promise<{ claims: LinkClaims; item: ReviewItem }> {
    const claims = await this.#check(interruptId, token);
    const item = await this.#store.getItem(interruptId);
    if (item === undefined || item.tenant !== claims.tenant) throw refused("invalid", "the item of this link no longer exists");
    // Opening does not use it up: only answering does.
    const used = await this.#uses.find(claims.nonce);
    if (used !== undefined) throw refused("used", `this link was already used (at ${used.usedAt})`, { used_at: Date.parse(used.usedAt) });
    return { claims, item };
  }

  /**
   * Answers through the link, once: the store marks its nonce used first
   * (another use, on any node, is refused from then on), then the answer goes
   * through the coordinator as the link's candidate. A malformed answer
   * (invalid_argument) gives the use back, so the holder can correct it.
   */
  /**
   * Answers the item with the link, once. A refusal that leaves the item open
   * for this holder (a bad value, a stale digest, someone else's claim, the
   * store unavailable) gives the use back: only an answer taken, or an item
   * that is over, spends the link.
   */
  async answer(interruptId: string, token: string, answer: Omit<AnswerInput, "interruptId">, source: Omit<ActionSource, "transport">): ReturnType<ReviewCoordinator["answer"]> {
    const claims = await this.#check(interruptId, token);
    const used = await this.#uses.use({ nonce: claims.nonce, tenant: claims.tenant, interruptId, sub: claims.sub }, this.#clock());
    if (!used.ok) throw refused("used", `this link was already used (at ${used.first.usedAt})`, { used_at: Date.parse(used.first.usedAt) });
    const holder: Principal = { sub: claims.sub, name: claims.name, tenant: claims.tenant, roles: claims.roles, source: { transport: "link", ...source } };
    try {
      return await this.#reviews.answer(holder, [{ interruptId, ...answer }], undefined);
    } catch (error) {
      if (!(error instanceof SwitchboardError && SPENDS_LINK.has(error.code))) await this.#uses.release(claims.nonce);
      throw error;
    }
  }
}
