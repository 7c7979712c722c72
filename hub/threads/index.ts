/** hub/threads: per-thread event logs, replay and fan-out. */
export { DEFAULT_REPLAY_CAPACITY, LogEntry, ThreadLog } from "./thread-log.ts";
export type { EventTransformer, LogSubscriber, ReplayResult, ThreadLogOptions } from "./thread-log.ts";
export { ThreadLogs } from "./registry.ts";
export type { ThreadLogsOptions, ThreadSeed } from "./registry.ts";
export { BusFencedError, BusUnavailableError } from "./bus.ts";
export type { BusAppend, BusEntry, BusFence, BusPin, BusSnapshot, EventBus } from "./bus.ts";
