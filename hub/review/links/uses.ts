/**
 * The answer-link use port: a link's nonce is marked used once, in the store
 * (atomic; with Postgres, across nodes), so the second use of a link is
 * refused wherever it arrives. Backends: hub/storage/{memory,sqlite,postgres}/link-uses.ts,
 * conformance in test/hub/storage/conformance/link-uses.ts.
 */

export interface LinkUse {
  nonce: string;
  tenant: string;
  interruptId: string;
  sub: string;
  usedAt: string;
}

export interface LinkUses {
  /** Marks the nonce used now; `ok: false` with the first use when it already was. */
  use(use: Omit<LinkUse, "usedAt">, now: number): Promise<{ ok: true } | { ok: false; first: LinkUse }>;
  /** The nonce's use, if it was used. */
  find(nonce: string): Promise<LinkUse | undefined>;
  /** Forgets a use (its answer was refused as malformed: the holder may correct it and try again). */
  release(nonce: string): Promise<void>;
  /**
   * Forgets up to `limit` uses made before `before` (epoch ms), oldest first;
   * resolves with how many. Only for links that have expired since: an
   * expired link is refused before its use is looked at.
   */
  prune(before: number, limit: number): Promise<number>;
  close(): Promise<void>;
}
