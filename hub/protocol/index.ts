/**
 * hub/protocol: the wire of Switchboard, shared by the hub and every client.
 * Imports nothing else from hub/ and nothing from engine/ at runtime.
 */
export { assertNever } from "./assert-never.ts";
export { isRecord } from "./is-record.ts";
export { awarenessFromBase64, awarenessToBase64, decodeAwareness, encodeAwareness } from "./awareness.ts";
export type { AwarenessDecoded, AwarenessEntry, AwarenessLimits, AwarenessRefusal } from "./awareness.ts";
export { channelOf, matchesRoute, matchesSubscription, namespaceMatches } from "./channels.ts";
export type { SubscriptionFilter } from "./channels.ts";
export {
  decodeEvent,
  decodeResponse,
  decodeServerMessage,
  encodeEvent,
  encodeResponse,
  errorResponse,
  errorResponseOf,
} from "./codec.ts";
export type { DecodeEventResult, DecodeResponseResult, DecodeServerMessageResult } from "./codec.ts";
export { CLOSE_CODES, ERROR_CODES, SwitchboardError, httpStatusOf, isErrorCode, isRetryable } from "./errors.ts";
export type { CloseCode, CloseReason, DecodeErrorKind, ErrorCode, ErrorCodeInfo, ProtocolError } from "./errors.ts";
export { THREADS_SNAPSHOT_MAX, commandSchema, decodeCommand, encodeCommand } from "./schema.ts";
export type { DecodeCommandResult } from "./schema.ts";
export { DEFAULT_MAX_JSON_DEPTH, jsonDepthExceeds, tooDeepMessage, utf8Bytes } from "./json-limits.ts";
export { COMMAND_METHODS, EVENT_METHODS, QUEUE_EVENT_METHODS, REVIEW_EVENT_METHODS, THREADLESS_METHODS } from "./types.ts";
export { KNOWN_DELTA_TYPES } from "./event-schema.ts";
export type * from "./types.ts";
export { ALL_QUEUES, DEV_AS_NAME, DEV_AS_PREFIX, assistantListSchema, healthSchema, threadListSchema, threadRecordSchema, quorumInfoSchema, quorumProgressSchema, reviewInfoSchema, reviewRecordSchema, threadReviewsSchema, whoAmISchema } from "./rest.ts";
export type { AssistantInfo, HealthInfo, QuorumInfo, ThreadRecordJson, ReviewActionJson, ReviewInfo, ReviewRecord, ReviewRoutingJson, ReviewViewer, WhoAmI } from "./rest.ts";
