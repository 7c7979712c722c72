/**
 * What `switchboard review` reviews: a review queue (across threads) or,
 * when the hub has no queues or `--thread` is given, the pending interrupts
 * of one thread. One small interface over QueueHandle and ThreadHandle.
 */
import type { HubClient, InterruptView, ResolvedInterrupt, Unsubscribe } from "../index.ts";
import { CliError } from "./args.ts";
import { barrier, explain, hasCode } from "./connect.ts";

export interface ReviewSource {
  /** "queue legal" or "thread 3f2c…", for messages. */
  readonly label: string;
  readonly kind: "queue" | "thread";
  items(): readonly InterruptView[];
  resolved(): readonly ResolvedInterrupt[];
  onChange(listener: () => void): Unsubscribe;
  answer(item: InterruptView, value: unknown): Promise<void>;
  /** One resume for several items (parallel interrupts of one thread). */
  answerMany(items: readonly InterruptView[], value: unknown): Promise<void>;
  claim(item: InterruptView, ttlMs?: number): Promise<{ expires_at: number }>;
  release(item: InterruptView): Promise<void>;
  close(): Promise<void>;
}

export interface SourceChoice {
  queue: string | undefined;
  thread: string | undefined;
}

/** Opens the queue (falling back to `--thread` when queues are not supported) or the thread. */
export async function openSource(client: HubClient, choice: SourceChoice, notice: (text: string) => void, threadExists: (threadId: string) => Promise<void>): Promise<ReviewSource> {
  if (choice.queue !== undefined || choice.thread === undefined) {
    const name = choice.queue ?? "default";
    const queue = client.queue(name);
    try {
      await queue.subscribe();
      return {
        label: `queue ${name}`,
        kind: "queue",
        items: () => queue.items,
        resolved: () => queue.resolved,
        onChange: (listener) => both(queue.on("items", listener), queue.on("resolved", listener)),
        answer: (item, value) => queue.answer(item, value),
        answerMany: async (items, value) => {
          for (const item of items) await queue.answer(item, value);
        },
        claim: (item, ttlMs) => queue.claim(item, ttlMs),
        release: (item) => queue.release(item),
        close: () => queue.close(),
      };
    } catch (error) {
      if (!hasCode(error, "not_supported")) throw explain(error);
      await queue.close().catch(() => undefined);
      if (choice.thread === undefined) {
        throw new CliError(`this hub does not support review queues yet; review one thread's interrupts with \`switchboard review --thread <id>\``);
      }
      notice(`this hub does not support review queues yet: reviewing the pending interrupts of thread ${choice.thread} instead`);
    }
  }
  const threadId = choice.thread;
  if (threadId === undefined) throw new CliError("no thread to review");
  await threadExists(threadId);
  const thread = client.thread(threadId);
  try {
    await thread.subscribe(["lifecycle", "input", "tasks"]);
    await barrier(thread);
  } catch (error) {
    throw explain(error);
  }
  return {
    label: `thread ${threadId}`,
    kind: "thread",
    items: () => thread.interrupts,
    resolved: () => thread.resolved,
    onChange: (listener) => both(thread.on("interrupts", listener), thread.on("resolved", listener)),
    answer: async (item, value) => {
      await thread.respond(item.interrupt_id, value);
    },
    answerMany: async (items, value) => {
      await thread.respondMany(items.map((i) => ({ interruptId: i.interrupt_id, value })));
    },
    claim: (item, ttlMs) => thread.claim(item.interrupt_id, ttlMs),
    release: (item) => thread.release(item.interrupt_id),
    close: () => thread.close(),
  };
}

function both(a: Unsubscribe, b: Unsubscribe): Unsubscribe {
  return () => {
    a();
    b();
  };
}
