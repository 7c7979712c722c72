/**
 * client: the Switchboard SDK for browsers and Node. One HubClient per hub;
 * `client.thread(id)`, `client.queue(name)` and `client.threads()` give live, typed handles.
 * Wire types come from hub/protocol only.
 */
export { HubClient } from "./client.ts";
export type { HubClientOptions } from "./client.ts";
export { ThreadHandle, DEFAULT_CHANNELS } from "./thread.ts";
export { PRESENCE_RENEW_MS } from "./local-presence.ts";
export type { Answer, ReassignRequest, RunOptions, SubscribeOptions, Subscription, ThreadEvents } from "./thread.ts";
export { QueueHandle } from "./queue.ts";
export type { QueueEvents } from "./queue.ts";
export { ThreadListHandle, upsertThread } from "./thread-list.ts";
export type { ThreadListEvents } from "./thread-list.ts";
export { CLIENT_ERROR_CODES, HubClientError, isRetryableCode } from "./errors.ts";
export type { ClientOnlyErrorCode, HubClientErrorCode } from "./errors.ts";
export { Emitter, iterate } from "./emitter.ts";
export type { IterateOptions, Observable, Unsubscribe } from "./emitter.ts";
export { DEFAULT_BACKOFF, backoffDelay } from "./backoff.ts";
export type { BackoffOptions } from "./backoff.ts";
export { DEFAULT_REQUEST_TIMEOUT_MS, socketUrl } from "./connection.ts";
export type { CommandInput, ConnectionEvents, ConnectionState, RequestOptions, TokenContext, TokenProvider } from "./connection.ts";
export { closeModeUrl } from "./socket.ts";
export { platformSocketFactory } from "./socket.ts";
export type { ClientSocket, PlatformWebSocket, PlatformWebSocketConstructor, SocketFactory, SocketHandlers, SocketRequest } from "./socket.ts";
// Pure projections, for custom stores (Redux, signals) and tests.
export { initialThreadState, projectThread, reduceThread, stateFromResync } from "./projections/thread-state.ts";
export type { RunView, ThreadState } from "./projections/thread-state.ts";
export { proposedCallOf } from "./actions.ts";
export type { ProposedCall } from "./actions.ts";
export { conversationOf, messagesFromValues, reduceMessages, parseArgs } from "./projections/messages.ts";
export type { BlockView, MessageStatus, MessageView, ToolCallView } from "./projections/messages.ts";
export { reduceTools } from "./projections/tools.ts";
export type { ToolRunView } from "./projections/tools.ts";
export { emptyInterrupts, interruptsFromSnapshot, isClaimHeld, reduceInterrupts } from "./projections/interrupts.ts";
export type { InterruptView, InterruptsState, ResolvedInterrupt } from "./projections/interrupts.ts";
export { buildTree, emptyTree, reduceTree } from "./projections/tree.ts";
export type { AgentTree, NamespaceStatus, NamespaceView, NodeStatus, NodeView, TreeState } from "./projections/tree.ts";
export { applyAwareness, decodeAwarenessUpdate, emptyPresence, encodeAwarenessUpdate, presenceList, reducePresence } from "./projections/presence.ts";
export type { AwarenessEntry, PresenceEntry, PresenceState } from "./projections/presence.ts";
export { emptyQueue, queueFromSnapshot, reduceNamedQueue, reduceQueue } from "./projections/queue.ts";
export type { QueueState } from "./projections/queue.ts";
export { admit, openGate } from "./seq-gate.ts";
export type { SeqGate } from "./seq-gate.ts";
export { RestClient, httpBase } from "./rest.ts";
export { printable } from "./printable.ts";
export type { FetchLike, RestOptions } from "./rest.ts";
