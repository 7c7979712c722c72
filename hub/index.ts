/** The public surface of the Switchboard hub. */
export { createHub, startHub, type Hub } from "./hub.ts";
export type { HubCounters, HubStats } from "./metrics.ts";
export type { PresenceCounts } from "./presence/index.ts";
export { DataDirInUseError } from "./storage/index.ts";
export { ConfigError, DEFAULT_LIMITS, HUB_ENV_VARS, configFromEnv, consoleLogger, jsonLogger, silentLogger, validateConfig } from "./config.ts";
export type { ConfigErrorCode, HubConfig, HubLimits, JwksConfig, Logger } from "./config.ts";
export { AssistantRegistry } from "./runs/assistants.ts";
export type { Assistant, AssistantFactory, AssistantGraph } from "./runs/assistants.ts";
export { demoAssistants, EXPENSE_CLAIM, REVIEW_DRAFT } from "./demo/index.ts";
export type { EventTransformer } from "./threads/index.ts";
export { RESUME_POLICY_KEY } from "./review/index.ts";
export type { ReviewConfig } from "./review/index.ts";
export type { RoutingContext, RoutingHook, Routing } from "./review/index.ts";
export { ADMIN_ROLE, THREAD_ROLES, mintToken } from "./auth/index.ts";
export type { MintClaims } from "./auth/index.ts";
export { checkConfig, fn as functionSchema, jwksSchema, limitsSchema, loggerSchema, originSchema, reviewConfigSchema } from "./config-schema.ts";
