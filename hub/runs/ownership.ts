/**
 * Who runs a thread's active run when there are several nodes: this node
 * holds the thread's lease (runs/leases.ts) for as long as it runs the run,
 * renews it by heartbeat, and fences itself the moment it may have lost it —
 * the store says another node holds it, or no renewal got through for a whole
 * lease time (a paused or cut-off node must not trust its own clock to say it
 * still holds it). While it holds the lease, the run's checkpoint writes and
 * bus appends carry its token, and the store and the bus refuse an older one.
 *
 * The sweeper takes over leases whose node stopped renewing them.
 */
import type { EventBus, ThreadLogs } from "../threads/index.ts";
import type { LeaseHolder, RunLeases, TakenLease } from "./leases.ts";

export interface OwnershipOptions {
  leases: RunLeases;
  nodeId: string;
  leaseMs: number;
  logs: ThreadLogs;
  /** The token of each thread this node runs, read by the checkpointer's write guard. */
  fences: Map<string, number>;
  bus?: EventBus | undefined;
  onError: (error: unknown, context: string) => void;
}

/** A lease this node holds for one run. */
export class HeldLease {
  readonly threadId: string;
  readonly runId: string;
  readonly token: number;
  readonly #o: OwnershipOptions;
  readonly #timer: NodeJS.Timeout;
  #lastRenewed = performance.now();
  #lost = false;
  #ended = false;

  constructor(o: OwnershipOptions, threadId: string, runId: string, token: number, onLost: () => void) {
    this.#o = o;
    this.threadId = threadId;
    this.runId = runId;
    this.token = token;
    o.fences.set(threadId, token);
    o.logs.setFence(threadId, { token, onFenced: () => this.#lose(onLost) });
    this.#timer = setInterval(() => void this.#renew(onLost), Math.max(50, Math.floor(o.leaseMs / 3)));
    this.#timer.unref();
  }

  get lost(): boolean {
    return this.#lost;
  }

  async #renew(onLost: () => void): Promise<void> {
    if (this.#ended) return;
    try {
      if (await this.#o.leases.renew(this.threadId, this.token, this.#o.leaseMs)) {
        this.#lastRenewed = performance.now();
        return;
      }
      this.#lose(onLost);
    } catch (error) {
      this.#o.onError(error, `renewing the lease of run ${this.runId}`);
      // No renewal for a whole lease: another node may hold it by now.
      if (performance.now() - this.#lastRenewed >= this.#o.leaseMs) this.#lose(onLost);
    }
  }

  #lose(onLost: () => void): void {
    if (this.#lost || this.#ended) return;
    this.#lost = true;
    this.#stop();
    onLost();
  }

  #stop(): void {
    clearInterval(this.#timer);
    if (this.#o.fences.get(this.threadId) === this.token) this.#o.fences.delete(this.threadId);
    this.#o.logs.setFence(this.threadId, undefined);
  }

  /** The run ended: the thread is free for the next run, on any node. */
  async release(): Promise<void> {
    this.#ended = true;
    this.#stop();
    if (!this.#lost) await this.#o.leases.release(this.threadId, this.token);
  }

  /** This node stops: another node takes the run over now, not a lease time later. */
  async handOver(): Promise<void> {
    this.#ended = true;
    this.#stop();
    if (!this.#lost) await this.#o.leases.handOver(this.threadId, this.token);
  }
}

export class RunOwnership {
  readonly nodeId: string;
  readonly leaseMs: number;
  readonly #o: OwnershipOptions;
  #sweeper: NodeJS.Timeout | undefined;
  #sweeping = false;

  constructor(options: OwnershipOptions) {
    this.#o = options;
    this.nodeId = options.nodeId;
    this.leaseMs = options.leaseMs;
  }

  /** Takes the thread for a new run of this node; the holder when another run has it. */
  async acquire(threadId: string, runId: string): Promise<{ token: number } | { holder: LeaseHolder }> {
    const result = await this.#o.leases.acquire(threadId, runId, this.nodeId, this.leaseMs);
    return result.ok ? { token: result.token } : { holder: result.holder };
  }

  /** Who holds the thread's lease now, if anyone. */
  holder(threadId: string): Promise<LeaseHolder | undefined> {
    return this.#o.leases.holder(threadId);
  }

  /** Starts holding a lease this node was given (acquired or taken over); raises the bus's fence first. */
  async hold(threadId: string, runId: string, token: number, onLost: () => void): Promise<HeldLease> {
    await this.#o.bus?.fence(threadId, token);
    return new HeldLease(this.#o, threadId, runId, token, onLost);
  }

  /** Looks for lapsed leases every so often (and now); each one taken is handed to `takeOver`. */
  startSweeper(takeOver: (lease: TakenLease) => Promise<void>): void {
    const sweep = async (): Promise<void> => {
      if (this.#sweeping) return;
      this.#sweeping = true;
      try {
        for (const lease of await this.#o.leases.takeOver(this.nodeId, this.leaseMs, 5)) {
          await takeOver(lease).catch((error: unknown) => this.#o.onError(error, `taking over run ${lease.runId} of thread ${lease.threadId}`));
        }
      } catch (error) {
        this.#o.onError(error, "looking for runs to take over");
      } finally {
        this.#sweeping = false;
      }
    };
    void sweep();
    this.#sweeper = setInterval(() => void sweep(), Math.min(1_000, Math.floor(this.leaseMs / 2)));
    this.#sweeper.unref();
  }

  stopSweeper(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}
