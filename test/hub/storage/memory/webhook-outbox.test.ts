/** MemoryWebhookOutbox against the webhook outbox conformance suite (one process: no second handle, so no claim race). */
import { MemoryWebhookOutbox } from "../../../../hub/storage/memory/index.ts";
import { describeWebhookOutboxConformance } from "../conformance/webhook-outbox.ts";

describeWebhookOutboxConformance("MemoryWebhookOutbox", async () => ({ outbox: new MemoryWebhookOutbox(), dispose: async () => {} }), false);
