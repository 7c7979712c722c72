/**
 * Retention of the review rows that only grow: settled webhook deliveries
 * (delivered or failed; kept `retention.webhookDeliveriesMs`, default 30
 * days, for GET /webhooks/deliveries and replays) and answer-link uses (kept
 * until every link they could stand for has expired: MAX_LINK_TTL_MS after
 * the use, plus a day for clocks). Pending deliveries are never pruned. A
 * sweep every `sweepIntervalMs` (default an hour) deletes a batch at a time,
 * oldest first; a failure is logged and the next sweep tries again. With
 * several nodes every node sweeps; a row deleted twice is deleted once.
 */
import type { LinkUses } from "./links/uses.ts";
import { MAX_LINK_TTL_MS } from "./links/service.ts";
import type { WebhookOutbox } from "./webhooks/outbox.ts";

export const DEFAULT_DELIVERY_RETENTION_MS = 30 * 24 * 3_600_000;
export const DEFAULT_ROW_SWEEP_MS = 3_600_000;
/** A use is kept this long: the longest a link lives, and a day for clocks. */
export const LINK_USE_RETENTION_MS = MAX_LINK_TTL_MS + 24 * 3_600_000;
export const ROW_SWEEP_BATCH = 1_000;
/** Batches per table and sweep: a backlog drains over several sweeps without holding the store for long. */
const MAX_BATCHES = 50;

export interface RowSweeperOptions {
  outbox: WebhookOutbox;
  linkUses: LinkUses;
  /** Settled deliveries older than this go (default 30 days). */
  webhookDeliveriesMs?: number;
  sweepIntervalMs?: number;
  onError: (error: unknown, context: string) => void;
  clock?: () => number;
}

export class RowSweeper {
  readonly #o: RowSweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<{ deliveries: number; linkUses: number }> | undefined;

  constructor(options: RowSweeperOptions) {
    this.#o = options;
  }

  /** Sweeps now, then every interval. */
  start(): void {
    if (this.#timer) return;
    void this.sweep();
    this.#timer = setInterval(() => void this.sweep(), this.#o.sweepIntervalMs ?? DEFAULT_ROW_SWEEP_MS);
    this.#timer.unref();
  }

  /** One sweep; resolves with how many rows of each kind went. */
  sweep(): Promise<{ deliveries: number; linkUses: number }> {
    this.#sweeping ??= this.#run().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async #run(): Promise<{ deliveries: number; linkUses: number }> {
    const now = (this.#o.clock ?? Date.now)();
    const deliveries = await this.#drain("pruning settled webhook deliveries", (limit) => this.#o.outbox.prune(now - (this.#o.webhookDeliveriesMs ?? DEFAULT_DELIVERY_RETENTION_MS), limit));
    const linkUses = await this.#drain("pruning answer-link uses", (limit) => this.#o.linkUses.prune(now - LINK_USE_RETENTION_MS, limit));
    return { deliveries, linkUses };
  }

  async #drain(context: string, prune: (limit: number) => Promise<number>): Promise<number> {
    let total = 0;
    try {
      for (let i = 0; i < MAX_BATCHES; i++) {
        const n = await prune(ROW_SWEEP_BATCH);
        total += n;
        if (n < ROW_SWEEP_BATCH) break;
      }
    } catch (error) {
      this.#o.onError(error, context);
    }
    return total;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }
}
