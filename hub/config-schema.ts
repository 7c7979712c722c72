/**
 * The one validation of a hub configuration, whatever built it (`createHub`'s
 * caller, `configFromEnv`, `switchboard serve --config`): a strict zod schema,
 * so a typo such as `asistants` is an error that lists the valid keys instead
 * of a silently ignored field. Errors are `ConfigError`s: one line for people,
 * with how to fix it, and a stable code.
 */
import { z } from "zod";
import { expiryPolicySchema } from "./review/index.ts";

export type ConfigErrorCode = "CONFIG_ERR_INVALID" | "CONFIG_ERR_UNKNOWN_KEY" | "CONFIG_ERR_ASSISTANT";

/** A configuration the hub refuses to start with; `message` is one line that says how to fix it. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly code: ConfigErrorCode;

  constructor(code: ConfigErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export const fn = <T>(what: string) => z.custom<T>((value) => typeof value === "function", { message: `must be a function (${what})` });
const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();
const port = z.number().int().min(0).max(65535);

/** Every limit: a positive integer, except the few where 0 means "never". */
export const limitsSchema = z
  .strictObject({
    maxFrameBytes: positiveInt,
    maxJsonDepth: positiveInt,
    maxIdBytes: positiveInt,
    maxMetadataBytes: positiveInt,
    maxPayloadBytes: positiveInt,
    retainedSubscriptions: positiveInt,
    retainedSubscriptionBytes: positiveInt,
    retainedSubscriptionMs: positiveInt,
    replayCapacity: positiveInt,
    maxLoadedThreads: positiveInt,
    sendSoftBytes: positiveInt,
    sendHardBytes: positiveInt,
    sendQueueMaxMs: positiveInt,
    flushIntervalMs: positiveInt,
    commandsPerSecond: positiveInt,
    commandBurst: positiveInt,
    restRequestsPerSecond: positiveInt,
    restBurst: positiveInt,
    heartbeatMs: positiveInt,
    idleTimeoutMs: nonNegativeInt,
    sseHeartbeatMs: positiveInt,
  })
  .partial();

export const reviewConfigSchema = z.strictObject({
  defaultQueue: z.string().min(1).optional(),
  routingHook: fn("a routing hook (ctx) => Partial<Routing> | undefined").optional(),
  expiresIn: z.union([positiveInt, z.string().min(1)]).optional(),
  overrideRoles: z.array(z.string().min(1)).optional(),
  claimTtlMs: positiveInt.optional(),
  onExpire: expiryPolicySchema.optional(),
  clock: fn("() => epoch ms").optional(),
});

/** HubConfig.webhooks (review/webhooks/dispatcher.ts). */
/** The fields of a webhook endpoint, shared by the config and the REST route that manages endpoints. */
export const webhookEndpointFields = {
  url: z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(2048, "must be at most 2048 characters"),
  secret: z.string().regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/, "must be whsec_ followed by base64 of 24–64 random bytes (`node -e \"console.log('whsec_'+crypto.randomBytes(32).toString('base64'))\"`)"),
  events: z.array(z.string().min(1).max(100)).min(1).max(100).optional(),
  queues: z.array(z.string().min(1).max(200)).min(1).max(100).optional(),
};

export const webhooksSchema = z.strictObject({
  endpoints: z.array(
    z.strictObject({
      id: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, "must be 1–100 letters, digits, _ . -"),
      ...webhookEndpointFields,
      tenant: z.string().min(1),
      answerLinks: z.boolean().optional(),
    }),
  ).refine((list) => new Set(list.map((e) => e.id)).size === list.length, { message: "must have unique ids" }),
  maxAttempts: z.number().int().min(1).max(100).optional(),
  retryBaseMs: positiveInt.optional(),
  retryMaxMs: positiveInt.optional(),
  timeoutMs: positiveInt.optional(),
  maxBodyBytes: z.number().int().min(1024).optional(),
  pollMs: positiveInt.optional(),
  clock: fn("() => epoch ms").optional(),
});

/** HubConfig.answerLinks (review/links/service.ts). */
export const answerLinksSchema = z.strictObject({
  secret: z.string().refine((v) => Buffer.byteLength(v) >= 32, "must be at least 32 bytes").optional(),
  ttl: z.union([positiveInt, z.string().regex(/^\d+(ms|s|m|h|d)$/, 'must be a duration such as "30m", "24h" or "7d"')]).optional(),
  baseUrl: z.url({ protocol: /^https?$/, message: "must be the http(s) URL people open the web app at" }).optional(),
});

export const loggerSchema = z.custom<object>(
  (value) => typeof value === "object" && value !== null && ["info", "warn", "error"].every((m) => typeof (value as Record<string, unknown>)[m] === "function"),
  { message: "must be a Logger { info, warn, error }" },
);

export const originSchema = z.string().refine((value) => value === "*" || isOrigin(value), {
  message: 'must be an origin such as "https://app.example.com" (scheme, host and port only) or "*"',
});

export const jwksSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, message: "must be an http(s) URL of a JSON Web Key Set" }),
  issuer: z.string().min(1, "is required with a JWKS: the `iss` your identity provider puts in its tokens"),
  audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  cacheMaxAgeMs: positiveInt.optional(),
});

export const MIN_RUN_LEASE_MS = 500;

/** HubConfig.cluster (see cluster-config.ts). */
export const clusterSchema = z.strictObject({
  databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL"),
  redisUrl: z.string().regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL").optional(),
  nodeId: z.string().min(1).max(200).optional(),
  runLeaseMs: z.number().int().min(MIN_RUN_LEASE_MS).optional(),
  schema: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, "must be lower-case letters, digits and _").optional(),
  redisPrefix: z.string().min(1).max(100).optional(),
});


export const hubConfigSchema = z.strictObject({
  port: port.optional(),
  host: z.string().min(1).optional(),
  dataDir: z.string().min(1).nullable().optional(),
  jwtSecret: z.string().optional(),
  jwks: jwksSchema.optional(),
  allowedOrigins: z.array(originSchema).optional(),
  assistants: fn("(checkpointer) => Assistant[]").optional(),
  webRoot: z.string().min(1).nullable().optional(),
  demoTokenDelayMs: nonNegativeInt.optional(),
  limits: limitsSchema.optional(),
  wsRefusal: z.enum(["http", "close"]).optional(),
  transformEvent: fn("(event, threadId) => event | null").optional(),
  review: reviewConfigSchema.optional(),
  webhooks: webhooksSchema.optional(),
  answerLinks: answerLinksSchema.optional(),
  logger: loggerSchema.optional(),
  cluster: clusterSchema.optional(),
  retention: z.strictObject({ threadTtlMs: positiveInt.optional(), sweepIntervalMs: positiveInt.optional(), webhookDeliveriesMs: positiveInt.optional() }).optional(),
});

/** An origin as a browser sends it: scheme://host[:port], nothing after. */
export function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === value;
  } catch {
    return false;
  }
}

/** Throws a ConfigError naming the first problem; `where` prefixes paths (e.g. "config ./x.ts"). */
export function checkConfig<T>(schema: z.ZodType<T>, input: unknown, where = "hub config"): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (issue === undefined) throw new ConfigError("CONFIG_ERR_INVALID", `${where} is invalid`);
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const parent = pathTo(schema, issue.path);
    const valid = parent ? Object.keys(parent.shape) : [];
    const names = issue.keys.map((k) => `"${prefixed(path, k)}"${suggestion(k, valid)}`).join(", ");
    throw new ConfigError("CONFIG_ERR_UNKNOWN_KEY", `${where}: unknown key ${names}; valid keys${path ? ` of ${path}` : ""}: ${valid.join(", ")}`);
  }
  throw new ConfigError("CONFIG_ERR_INVALID", `${where}: ${path || "config"} ${issue.message}`);
}

const prefixed = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** The strict object schema at `path`, to list its keys. */
function pathTo(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodObject | undefined {
  let current: z.ZodType | undefined = schema;
  for (const key of path) {
    current = unwrap(current);
    // A list's element (webhooks.endpoints.0): every index has the element's schema.
    if (current instanceof z.ZodArray && typeof key === "number") {
      current = current.element as z.ZodType;
      continue;
    }
    if (!(current instanceof z.ZodObject)) return undefined;
    current = (current.shape as Record<string, z.ZodType>)[String(key)];
  }
  current = unwrap(current);
  return current instanceof z.ZodObject ? current : undefined;
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  return s;
}

/** ` (did you mean "x"?)` for a near miss: edit distance at most a third of the word. */
function suggestion(key: string, valid: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of valid) {
    const d = distance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? ` (did you mean "${best}"?)` : "";
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length] ?? 0;
}
