/** What transports and routes need from the hub, passed around as one object. */
import type { AssistantRegistry } from "./runs/assistants.ts";
import type { Authenticator, OriginPolicy } from "./auth/index.ts";
import type { HubLimits, Logger } from "./config.ts";
import type { HubMetrics } from "./metrics.ts";
import type { PresenceRelay } from "./presence/index.ts";
import type { ReviewCoordinator } from "./review/index.ts";
import type { RunManager, ThreadWatch } from "./runs/index.ts";
import type { HubStore } from "./runs/index.ts";
import type { ItemStore } from "./store/index.ts";
import type { WebhookOutbox } from "./review/webhooks/outbox.ts";
import type { WebhookDispatcher } from "./review/webhooks/dispatcher.ts";
import type { AnswerLinks } from "./review/links/service.ts";
import type { ThreadLogs } from "./threads/index.ts";
import type { SubscriptionDirectory } from "./sessions/directory.ts";

export interface HubServices {
  /** Thread and run records; every thread change is also published to `threadWatch`. */
  store: HubStore;
  /** The LangGraph API's store: long-term memory items per tenant. */
  items: ItemStore;
  threadWatch: ThreadWatch;
  runs: RunManager;
  assistants: AssistantRegistry;
  logs: ThreadLogs;
  metrics: HubMetrics;
  limits: HubLimits;
  logger: Logger;
  auth: Authenticator;
  /** Which web pages may call the hub (CORS, WebSocket Origin, Host on loopback). */
  origins: OriginPolicy;
  subscriptions: SubscriptionDirectory;
  reviews: ReviewCoordinator;
  presence: PresenceRelay;
  /** The webhook outbox (REST lists and replays it, and keeps REST-managed endpoints) and the dispatcher. */
  webhooks: { outbox: WebhookOutbox; dispatcher: WebhookDispatcher };
  /** Answer links; undefined when the hub has no key for them (no `answerLinks.secret`, no `jwtSecret`). */
  links: AnswerLinks | undefined;
}
