/** hub/reviewing: review items wired into runs and transports; review queues; presence on sockets. */
export { RESUME_POLICY_KEY, ReviewCoordinator, refusalError, resumePolicyOf } from "../review/coordinator.ts";
export type { AnswerOutcome, ReviewConfig } from "../review/coordinator.ts";
export { QueueFanout, mayEverAnswer } from "../review/queues.ts";
export type { QueueListener } from "../review/queues.ts";
export { PresenceRelay } from "../presence/relay.ts";
export type { PresenceRoomRef } from "../presence/relay.ts";
export { auditJson, reviewItemJson } from "../http/review-json.ts";
