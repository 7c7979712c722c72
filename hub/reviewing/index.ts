/** hub/reviewing: review items wired into runs and transports; review queues; presence on sockets. */
export { RESUME_POLICY_KEY, ReviewCoordinator, refusalError, resumePolicyOf } from "./coordinator.ts";
export type { AnswerOutcome, ReviewConfig } from "./coordinator.ts";
export { QueueFanout, mayEverAnswer } from "./queues.ts";
export type { QueueListener } from "./queues.ts";
export { PresenceRelay } from "./presence.ts";
export type { PresenceRoomRef } from "./presence.ts";
export { auditJson, reviewItemJson } from "./json.ts";
