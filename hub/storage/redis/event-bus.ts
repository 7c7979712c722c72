/**
 * RedisEventBus: the event bus on Redis, shared by every hub node.
 *
 * Per thread: a counter (`…:seq`), a stream (`…:log`, bounded by `MAXLEN ~`,
 * entry id `<seq>-0`), a hash of baseline pins (`…:pins`) and a fence
 * (`…:fence`). One Lua script appends a batch atomically: it checks the fence,
 * takes the next seqs from the counter, adds each entry to the stream, updates
 * the pins and PUBLISHes the whole batch on the thread's channel — so the
 * order of the stream, of the seqs and of the live messages is one and the
 * same, whichever node appended. A missing counter (first use, expiry, or a
 * Redis that lost its data) starts at the appending node's Date.now() * 1000,
 * so a seq never repeats an earlier one — or, when the appender restores the
 * thread (BusRestore), at the floor it gives, with the baseline pins it knew
 * put back in the same script. Every key's TTL is renewed on append.
 *
 * Live delivery is Redis Pub/Sub on a second connection; a message is
 * "<first seq>\n<payload>\n<payload>…" (JSON never contains a raw newline).
 * Pub/Sub may drop messages across a reconnect; listeners fill gaps with read().
 * Topics (publish/subscribe: review items, presence, run control) are plain
 * Pub/Sub channels `…x:<topic>` on the same two connections.
 *
 * Lua numbers are doubles: seqs stay below 2^53 and are formatted with %d.
 */
import { Redis, type RedisOptions } from "ioredis";
import { BusFencedError, BusStreamLostError, BusUnavailableError, encodePin } from "../../threads/bus.ts";
import type { BusAppend, BusEntry, BusFence, BusOnLost, BusSnapshot, EventBus } from "../../threads/bus.ts";

const APPEND = `
local r = tonumber(ARGV[8])
local base = 8 + 3 * r
local n = (#ARGV - base) / 2
if ARGV[6] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
if ARGV[4] ~= '' then
  local f = redis.call('GET', KEYS[4])
  if f and tonumber(f) > tonumber(ARGV[4]) then return -2 end
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  if ARGV[7] == 'ask' then return -3 end
  redis.call('SET', KEYS[1], ARGV[1])
  for j = 1, r do
    redis.call('HSET', KEYS[3], ARGV[6 + 3 * j], ARGV[7 + 3 * j] .. ' ' .. ARGV[8 + 3 * j])
  end
end
local last = redis.call('INCRBY', KEYS[1], n)
local first = last - n + 1
local out = {}
for i = 1, n do
  local seq = string.format('%d', first + i - 1)
  local pin = ARGV[base - 1 + 2 * i]
  local payload = ARGV[base + 2 * i]
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], seq .. '-0', 'p', payload)
  if pin ~= '' then
    local fields = string.sub(pin, 3)
    if string.sub(pin, 1, 1) == 's' then
      redis.call('HSET', KEYS[3], fields, seq .. ' ' .. payload)
    else
      for f in string.gmatch(fields, '[^\\t]+') do redis.call('HDEL', KEYS[3], f) end
    end
  end
  out[i] = payload
end
redis.call('PUBLISH', ARGV[3], string.format('%d', first) .. '\\n' .. table.concat(out, '\\n'))
for k = 1, 4 do redis.call('PEXPIRE', KEYS[k], ARGV[5]) end
return first
`;

const FENCE = `
local f = redis.call('GET', KEYS[1])
if not f or tonumber(f) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1
`;

export interface RedisBusOptions {
  url: string;
  /** Key and channel prefix (default "sb:"); tests use one each. */
  prefix?: string;
  /** Entries kept per thread for replay (approximate, `MAXLEN ~`; default 10,000). */
  maxLen?: number;
  /** How long an idle thread's keys live (default 24 h); a later seq still never repeats. */
  retentionMs?: number;
  /** The clock of the counter floor (tests). */
  now?: () => number;
}

type AppendCommand = (keys: [string, string, string, string], ...args: string[]) => Promise<number>;

export class RedisEventBus implements EventBus {
  readonly #cmd: Redis;
  readonly #sub: Redis;
  readonly #prefix: string;
  readonly #maxLen: number;
  readonly #retentionMs: number;
  readonly #now: () => number;
  readonly #listeners = new Map<string, Set<(entries: BusEntry[]) => void>>();
  readonly #topics = new Map<string, Set<(message: string) => void>>();
  readonly #reconnectListeners = new Set<() => void>();
  #lostConnection = false;
  #closed = false;

  /** Connects both connections; rejects when Redis cannot be reached. */
  static async connect(options: RedisBusOptions): Promise<RedisEventBus> {
    const bus = new RedisEventBus(options);
    try {
      await Promise.all([bus.#cmd.connect(), bus.#sub.connect()]);
    } catch (error) {
      await bus.close();
      throw new BusUnavailableError(`Redis at ${redactUrl(options.url)} is unreachable: ${error instanceof Error ? error.message : String(error)}`);
    }
    return bus;
  }

  private constructor(options: RedisBusOptions) {
    this.#prefix = options.prefix ?? "sb:";
    this.#maxLen = options.maxLen ?? 10_000;
    this.#retentionMs = options.retentionMs ?? 24 * 3_600_000;
    this.#now = options.now ?? Date.now;
    // No offline queue: while Redis is away a command fails at once (the caller
    // buffers and retries) instead of piling up unbounded inside the client.
    const common: RedisOptions = {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 6), 2_000),
    };
    this.#cmd = new Redis(options.url, common);
    this.#sub = new Redis(options.url, { ...common, autoResubscribe: true });
    this.#cmd.defineCommand("sbAppend", { numberOfKeys: 4, lua: APPEND });
    this.#cmd.defineCommand("sbFence", { numberOfKeys: 1, lua: FENCE });
    // Errors are reported through the commands that fail; a connection error event must not crash the process.
    for (const connection of [this.#cmd, this.#sub]) {
      connection.on("error", () => {});
      connection.on("close", () => {
        if (!this.#closed) this.#lostConnection = true;
      });
    }
    this.#sub.on("ready", () => {
      if (!this.#lostConnection) return;
      this.#lostConnection = false;
      for (const listener of this.#reconnectListeners) listener();
    });
    this.#sub.on("message", (channel: string, message: string) => this.#onMessage(channel, message));
  }

  #key(threadId: string, part: "seq" | "log" | "pins" | "fence"): string {
    return `${this.#prefix}t:${threadId}:${part}`;
  }

  #channel(threadId: string): string {
    return `${this.#prefix}t:${threadId}`;
  }

  #topicChannel(topic: string): string {
    return `${this.#prefix}x:${topic}`;
  }

  async #run(items: readonly BusAppend[], threadId: string, fence: BusFence | undefined, seedOnly: boolean, onLost: BusOnLost = "fresh"): Promise<number> {
    if (items.length === 0) throw new RangeError("append needs at least one event");
    const restore = typeof onLost === "object" ? onLost : undefined;
    const args: string[] = [
      String(restore ? restore.floor : this.#now() * 1000),
      String(this.#maxLen),
      this.#channel(threadId),
      fence === undefined ? "" : String(fence.token),
      String(this.#retentionMs),
      seedOnly ? "1" : "0",
      onLost === "ask" ? "ask" : "",
      String(restore?.pins.length ?? 0),
    ];
    for (const pin of restore?.pins ?? []) args.push(pin.field, String(pin.seq), pin.payload);
    for (const item of items) args.push(encodePin(item.pin), item.payload);
    const append = (this.#cmd as unknown as { sbAppend: AppendCommand }).sbAppend.bind(this.#cmd);
    try {
      return await append([this.#key(threadId, "seq"), this.#key(threadId, "log"), this.#key(threadId, "pins"), this.#key(threadId, "fence")], ...args);
    } catch (error) {
      throw unavailable(error);
    }
  }

  async append(threadId: string, items: readonly BusAppend[], fence?: BusFence, onLost?: BusOnLost): Promise<number> {
    const first = await this.#run(items, threadId, fence, false, onLost);
    if (first === -2) throw new BusFencedError(`thread ${threadId}: the run's lease token ${fence?.token} is older than the thread's fence`);
    if (first === -3) throw new BusStreamLostError(`thread ${threadId} has no stream on the bus`);
    return first;
  }

  async seed(threadId: string, items: readonly BusAppend[]): Promise<number | null> {
    const first = await this.#run(items, threadId, undefined, true);
    return first < 0 ? null : first;
  }

  async read(threadId: string, after: number, limit: number): Promise<BusSnapshot> {
    const log = this.#key(threadId, "log");
    let replies: Array<[Error | null, unknown]> | null;
    try {
      // MULTI: the pins, the entries and the bounds are one snapshot.
      replies = await this.#cmd
        .multi()
        .hgetall(this.#key(threadId, "pins"))
        .xrange(log, `${after + 1}-0`, "+", "COUNT", limit)
        .xrange(log, "-", "+", "COUNT", 1)
        .get(this.#key(threadId, "seq"))
        .exec();
    } catch (error) {
      throw unavailable(error);
    }
    if (replies === null) throw new BusUnavailableError("the Redis transaction was aborted");
    for (const [error] of replies) if (error) throw unavailable(error);
    const pinsHash = replies[0]?.[1] as Record<string, string>;
    const pins = Object.values(pinsHash)
      .map((value): BusEntry => {
        const space = value.indexOf(" ");
        return { seq: Number(value.slice(0, space)), payload: value.slice(space + 1) };
      })
      .sort((a, b) => a.seq - b.seq);
    const entries = (replies[1]?.[1] as Array<[string, string[]]>).map(streamEntry);
    const [oldest] = (replies[2]?.[1] as Array<[string, string[]]>).map(streamEntry);
    const head = replies[3]?.[1];
    return { pins, entries, oldest: oldest?.seq ?? null, head: typeof head === "string" ? Number(head) : 0 };
  }

  async listen(threadId: string, onEntries: (entries: BusEntry[]) => void): Promise<() => void> {
    const channel = this.#channel(threadId);
    let set = this.#listeners.get(channel);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(channel, set);
      try {
        await this.#sub.subscribe(channel);
      } catch (error) {
        this.#listeners.delete(channel);
        throw unavailable(error);
      }
    }
    set.add(onEntries);
    return () => {
      const current = this.#listeners.get(channel);
      if (!current?.delete(onEntries) || current.size > 0) return;
      this.#listeners.delete(channel);
      this.#sub.unsubscribe(channel).catch(() => {});
    };
  }

  async publish(topic: string, message: string): Promise<void> {
    try {
      await this.#cmd.publish(this.#topicChannel(topic), message);
    } catch (error) {
      throw unavailable(error);
    }
  }

  async subscribe(topic: string, onMessage: (message: string) => void): Promise<() => void> {
    const channel = this.#topicChannel(topic);
    let set = this.#topics.get(channel);
    if (set === undefined) {
      set = new Set();
      this.#topics.set(channel, set);
      try {
        await this.#sub.subscribe(channel);
      } catch (error) {
        this.#topics.delete(channel);
        throw unavailable(error);
      }
    }
    const listener = (message: string): void => onMessage(message);
    set.add(listener);
    return () => {
      const current = this.#topics.get(channel);
      if (!current?.delete(listener) || current.size > 0) return;
      this.#topics.delete(channel);
      this.#sub.unsubscribe(channel).catch(() => {});
    };
  }

  onReconnect(listener: () => void): () => void {
    this.#reconnectListeners.add(listener);
    return () => this.#reconnectListeners.delete(listener);
  }

  async fence(threadId: string, token: number): Promise<void> {
    const fence = (this.#cmd as unknown as { sbFence: (key: string, token: string, ttl: string) => Promise<number> }).sbFence.bind(this.#cmd);
    try {
      await fence(this.#key(threadId, "fence"), String(token), String(this.#retentionMs));
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** Subscribed thread channels (tests check they are gone). */
  get listening(): number {
    return this.#listeners.size;
  }

  /** Subscribed topics (tests check they are gone). */
  get topics(): number {
    return this.#topics.size;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    this.#topics.clear();
    this.#reconnectListeners.clear();
    this.#cmd.disconnect();
    this.#sub.disconnect();
  }

  #onMessage(channel: string, message: string): void {
    const topic = this.#topics.get(channel);
    if (topic !== undefined) {
      for (const listener of topic) listener(message);
      return;
    }
    const set = this.#listeners.get(channel);
    if (set === undefined) return;
    const lines = message.split("\n");
    const first = Number(lines[0]);
    const entries = lines.slice(1).map((payload, i): BusEntry => ({ seq: first + i, payload }));
    for (const listener of set) listener(entries);
  }
}

function streamEntry([id, fields]: [string, string[]]): BusEntry {
  return { seq: Number(id.slice(0, id.indexOf("-"))), payload: fields[1] ?? "" };
}

function unavailable(error: unknown): Error {
  if (error instanceof BusUnavailableError || error instanceof BusFencedError) return error;
  return new BusUnavailableError(`Redis: ${error instanceof Error ? error.message : String(error)}`);
}

/** A URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(an invalid URL)";
  }
}
