/** In-memory adapters of the hub's ports: for tests and a hub without a data dir. */
export { MemoryHubStore } from "./hub-store.ts";
export { MemoryReviewStore } from "./review-store.ts";
export { MemoryItemStore } from "./item-store.ts";
export { MemoryWebhookOutbox } from "./webhook-outbox.ts";
export { MemoryLinkUses } from "./link-uses.ts";
