/**
 * hub/presence: who is watching a thread or queue and what they look at,
 * relayed as y-protocols awareness (DESIGN.md "Presence"). The hub stamps each
 * state's `user` with the authenticated principal and owns which clientIDs a
 * connection may speak for. Presence is informational only: nothing in it —
 * states, `user`, clientIDs — may be used for authorization; check the
 * Principal (hub/auth) instead.
 */
export { systemClock } from "./clock.ts";
export type { Cancel, PresenceClock } from "./clock.ts";
export { decodeAwarenessEntries, decodeBase64Update, encodeBase64Update, stampIdentity } from "./codec.ts";
export type { AwarenessEntry, AwarenessState, DecodeLimits, DecodedUpdate, PresenceUser } from "./codec.ts";
export { PRESENCE_REJECTIONS, presenceRejection } from "./errors.ts";
export type { PresenceRejectReason, PresenceRejection, PresenceResult } from "./errors.ts";
export { PresenceHub, presenceRoomKey } from "./hub.ts";
export type { PresenceCounts, PresenceHubOptions, PresenceLink, RoomKind } from "./hub.ts";
export { BusPresenceLink } from "./cluster.ts";
export { PRESENCE_DEFAULTS, PresenceRoom } from "./room.ts";
export type { PresenceBroadcast, PresenceLimits, PresenceRoomOptions } from "./room.ts";
export { PresenceRelay } from "./relay.ts";
export type { PresenceRoomRef } from "./relay.ts";
