/**
 * Routing of an interrupt: the hub's defaults, then the config's routing hook
 * (for graphs you don't control), then the payload's own `review` field, each
 * overriding the one before. Never throws: a bad `review` field is reported
 * as issues the hub logs, and the item is still routed. Each field is read on
 * its own, so one typo does not discard the rest; an invalid candidate list
 * fails closed (only the override roles may answer) instead of widening the
 * item to every reviewer of the tenant.
 */
import { z } from "zod";
import { ADMIN_ROLE } from "../auth/index.ts";
import { ALL_QUEUES, isRecord } from "../protocol/index.ts";
import { checkSchema } from "./json-schema.ts";
import { unsatisfiable } from "./quorum.ts";
import { MAX_ESCALATION_STEPS, MAX_REMINDERS, MIN_REMIND_EVERY_MS } from "./timers.ts";
import type { EscalationStep, ExpiryPolicy, JsonSchema, Quorum, RemindPolicy, Routing, Stage } from "./types.ts";
import { QUORUM_MODES } from "./types.ts";

export const DEFAULT_OVERRIDE_ROLES: readonly string[] = ["review-admin"];

/** What a routing hook knows about the interrupt. */
export interface RoutingContext {
  interruptId: string;
  threadId: string;
  runId: string;
  tenant: string;
  namespace: string[];
  node: string | null;
  /** Epoch ms; `expiresIn` counts from here. */
  now: number;
  /** Routing one action of a multi-action interrupt (actions.ts): which one. `interruptId` is then the item's id. */
  action?: { interruptId: string; index: number; count: number; name: string };
}

export type RoutingHook = (ctx: RoutingContext & { payload: unknown }) => Partial<Routing> | undefined;

/** Hub configuration of review routing. */
export interface RoutingDefaults {
  queue: string;
  hook?: RoutingHook;
  /** Default deadline (ms or "30m"); none when omitted. */
  expiresIn?: number | string;
  overrideRoles?: readonly string[];
  /** Expiry policy of items whose hook and payload set none. */
  onExpire?: ExpiryPolicy;
}

export interface RoutingIssue {
  /** `review.expiresIn`, `hook`, ... */
  path: string;
  message: string;
}

export interface RoutingResult {
  routing: Routing;
  /** Empty when the payload's `review` field (and the hook) were fine. */
  issues: RoutingIssue[];
}

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** Keeps every deadline a valid Date. */
const MAX_DURATION_MS = 366 * UNIT_MS.d;

/** Milliseconds of `1500`, "30m", "2h", "1h30m", "45s", "250ms", "7d"; undefined if not a positive duration. */
export function parseDuration(value: number | string): number | undefined {
  let ms: number;
  if (typeof value === "number") {
    ms = value;
  } else {
    const parts = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/.test(value.trim()) ? value.trim().match(/\d+(?:\.\d+)?(?:ms|s|m|h|d)/g) : null;
    if (parts === null) return undefined;
    ms = 0;
    for (const part of parts) {
      const [, amount = "", unit = ""] = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(part) ?? [];
      ms += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
    }
  }
  ms = Math.round(ms);
  return Number.isFinite(ms) && ms > 0 && ms <= MAX_DURATION_MS ? ms : undefined;
}

const name = z.string().trim().min(1).max(200);
const duration = z
  .union([z.number(), z.string()])
  .transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === undefined) {
      ctx.addIssue({ code: "custom", message: `must be a positive duration up to 366d: ms or a string like "30m", "2h", "1h30m"` });
      return z.NEVER;
    }
    return ms;
  });
const schemaField = z.union([z.boolean(), z.record(z.string(), z.unknown())]).superRefine((schema, ctx) => {
  for (const message of checkSchema(schema)) ctx.addIssue({ code: "custom", message });
});

/** A queue name: "*" is reserved for subscriptions to every queue. */
const queueName = name.refine((q) => q !== ALL_QUEUES, { message: `"${ALL_QUEUES}" is reserved (it subscribes to every queue)` });

const quorumField = z
  .object({ mode: z.enum(QUORUM_MODES), k: z.number().int().min(1).max(1000).optional(), rejectEnds: z.boolean().optional() })
  .strict()
  .superRefine((q, ctx) => {
    if (q.mode === "k_of_n" && q.k === undefined) ctx.addIssue({ code: "custom", message: `mode "k_of_n" needs k` });
    if (q.mode !== "k_of_n" && q.k !== undefined) ctx.addIssue({ code: "custom", message: `k is only for mode "k_of_n"` });
  });
const stagesField = z
  .array(
    z
      .object({ name, users: z.array(name).max(1000).optional(), roles: z.array(name).max(100).optional(), quorum: quorumField.optional() })
      .strict(),
  )
  .min(1)
  .max(20)
  .superRefine((stages, ctx) => {
    const names = new Set<string>();
    for (const [i, s] of stages.entries()) {
      if (names.has(s.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `duplicate stage name ${JSON.stringify(s.name)}` });
      names.add(s.name);
    }
  });

function toQuorum(q: z.output<typeof quorumField>): Quorum {
  const out: Quorum = { mode: q.mode };
  if (q.k !== undefined) out.k = q.k;
  if (q.rejectEnds !== undefined) out.rejectEnds = q.rejectEnds;
  return out;
}

function toStages(stages: z.output<typeof stagesField>): Stage[] {
  return stages.map((s) => ({ name: s.name, users: s.users ?? [], roles: s.roles ?? [], ...(s.quorum === undefined ? {} : { quorum: toQuorum(s.quorum) }) }));
}

const users = z.array(name).max(1000);
const roles = z.array(name).max(100);

/** An explicit policy, or `{ response }` (= `default`) as before policies were explicit. */
export const expiryPolicySchema: z.ZodType<ExpiryPolicy, unknown> = z.union([
  z.strictObject({ action: z.literal("keep") }),
  z.strictObject({ action: z.literal("default"), response: z.unknown() }).transform((p) => ({ action: "default" as const, response: p.response })),
  z.strictObject({ action: z.literal("deny"), reason: z.string().trim().min(1).max(1000).optional() }).transform((p): ExpiryPolicy =>
    p.reason === undefined ? { action: "deny" } : { action: "deny", reason: p.reason },
  ),
  z.strictObject({ response: z.unknown() }).transform((p) => ({ action: "default" as const, response: p.response })),
]);

const escalationStep = z
  .strictObject({ after: duration, queue: queueName.optional(), users: users.optional(), roles: roles.optional() })
  .refine((s) => s.queue !== undefined || s.users !== undefined || s.roles !== undefined, { message: "a step needs a queue, users or roles to move the item to" })
  .transform((s): EscalationStep => ({
    afterMs: s.after,
    ...(s.queue === undefined ? {} : { queue: s.queue }),
    ...(s.users === undefined ? {} : { users: s.users }),
    ...(s.roles === undefined ? {} : { roles: s.roles }),
  }));

/** Steps in the order they fire (by `after`; equal ones as written). */
export const escalationSchema = z
  .array(escalationStep)
  .min(1)
  .max(MAX_ESCALATION_STEPS)
  .transform((steps) => steps.map((step, i) => ({ step, i })).sort((a, b) => a.step.afterMs - b.step.afterMs || a.i - b.i).map((s) => s.step));

export const remindSchema = z
  .strictObject({
    every: duration.refine((ms) => ms >= MIN_REMIND_EVERY_MS, { message: `must be at least ${MIN_REMIND_EVERY_MS} ms` }),
    max: z.number().int().min(1).max(MAX_REMINDERS).optional(),
  })
  .transform((r): RemindPolicy => (r.max === undefined ? { everyMs: r.every } : { everyMs: r.every, max: r.max }));

/** One schema per `review` field, parsed independently. */
const REVIEW_FIELDS = {
  queue: queueName,
  users,
  roles,
  expiresIn: duration,
  onExpire: expiryPolicySchema,
  escalation: escalationSchema,
  remind: remindSchema,
  allowSelfApproval: z.boolean(),
  responseSchema: schemaField,
  quorum: quorumField,
  stages: stagesField,
  /** Per-action routing of a multi-action interrupt: read by actions.ts, field by field. */
  actions: z.record(z.string(), z.unknown()),
};
type ReviewFields = { [K in keyof typeof REVIEW_FIELDS]?: z.output<(typeof REVIEW_FIELDS)[K]> };

/** `{ [from]: v }` read as `{ [to]: v }`: a hook may return the Routing's own (normalized) field names. */
function renamed(value: unknown, from: string, to: string): unknown {
  if (!isRecord(value) || !(from in value) || to in value) return value;
  const { [from]: moved, ...rest } = value;
  return { ...rest, [to]: moved };
}

function normalizedSteps(value: unknown): unknown {
  return Array.isArray(value) ? value.map((step) => renamed(step, "afterMs", "after")) : value;
}

/** What a hook may return: the normalized Routing, each field optional (`after`/`every` durations or `afterMs`/`everyMs`). */
const HOOK_RESULT = z
  .object({
    queue: queueName,
    users: z.array(name),
    roles: z.array(name),
    expiresAt: z.iso.datetime().nullable(),
    onExpire: expiryPolicySchema,
    escalation: z.preprocess(normalizedSteps, escalationSchema),
    remind: z.preprocess((r) => renamed(r, "everyMs", "every"), remindSchema),
    allowSelfApproval: z.boolean(),
    responseSchema: schemaField,
    overrideRoles: z.array(name),
    quorum: quorumField,
    stages: stagesField,
  })
  .partial()
  .strict();

function messageOf(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");
}

function isoAfter(now: number, ms: number): string {
  return new Date(now + ms).toISOString();
}

/** The `review` field of an interrupt payload, field by field; invalid fields become issues. */
function readReviewField(raw: unknown, issues: RoutingIssue[]): { fields: ReviewFields; badCandidates: boolean } {
  const fields: ReviewFields = {};
  if (raw === undefined) return { fields, badCandidates: false };
  if (!isRecord(raw)) {
    issues.push({ path: "review", message: "must be an object; the default routing applies" });
    return { fields, badCandidates: false };
  }
  let badCandidates = false;
  for (const [key, value] of Object.entries(raw)) {
    if (!Object.hasOwn(REVIEW_FIELDS, key)) {
      issues.push({ path: `review.${key}`, message: `unknown field; expected one of ${Object.keys(REVIEW_FIELDS).join(", ")}` });
      continue;
    }
    const field = key as keyof typeof REVIEW_FIELDS;
    const parsed = REVIEW_FIELDS[field].safeParse(value);
    if (parsed.success) {
      (fields as Record<string, unknown>)[field] = parsed.data;
    } else {
      issues.push({ path: `review.${field}`, message: messageOf(parsed.error) });
      if (field === "users" || field === "roles") badCandidates = true;
    }
  }
  return { fields, badCandidates };
}

function hookRouting(defaults: RoutingDefaults, ctx: RoutingContext, payload: unknown, issues: RoutingIssue[]): Partial<Routing> {
  if (defaults.hook === undefined) return {};
  let returned: unknown;
  try {
    returned = defaults.hook({ ...ctx, payload });
  } catch (error) {
    issues.push({ path: "hook", message: `threw: ${error instanceof Error ? error.message : String(error)}; ignored` });
    return {};
  }
  if (returned === undefined) return {};
  const parsed = HOOK_RESULT.safeParse(returned);
  if (!parsed.success) {
    issues.push({ path: "hook", message: `returned an invalid routing (${messageOf(parsed.error)}); ignored` });
    return {};
  }
  const { responseSchema, quorum, stages, ...rest } = parsed.data;
  // A boolean schema is valid JSON Schema; `true` means no constraint.
  const schema: Partial<Routing> = typeof responseSchema === "object" ? { responseSchema: responseSchema as JsonSchema } : {};
  if (responseSchema === false) schema.responseSchema = { not: {} };
  if (quorum !== undefined) schema.quorum = toQuorum(quorum);
  if (stages !== undefined) schema.stages = toStages(stages);
  return { ...rest, ...schema };
}

/**
 * The routing of one interrupt; see the module header for precedence and
 * failure rules. `review`: the payload's review field, or one an action's
 * routing was merged into (actions.ts).
 */
export function routingOf(payload: unknown, defaults: RoutingDefaults, ctx: RoutingContext, review: unknown = isRecord(payload) ? payload["review"] : undefined): RoutingResult {
  const issues: RoutingIssue[] = [];
  const overrideRoles = [...(defaults.overrideRoles ?? DEFAULT_OVERRIDE_ROLES)];
  const defaultTtl = defaults.expiresIn === undefined ? undefined : parseDuration(defaults.expiresIn);
  if (defaults.expiresIn !== undefined && defaultTtl === undefined) {
    issues.push({ path: "defaults.expiresIn", message: `invalid duration ${JSON.stringify(defaults.expiresIn)}; ignored` });
  }
  const routing: Routing = {
    queue: defaults.queue,
    users: [],
    roles: [],
    expiresAt: defaultTtl === undefined ? null : isoAfter(ctx.now, defaultTtl),
    allowSelfApproval: false,
    overrideRoles,
  };
  if (defaults.onExpire !== undefined) routing.onExpire = defaults.onExpire;
  Object.assign(routing, hookRouting(defaults, ctx, payload, issues));

  const read = readReviewField(review, issues);
  const { fields } = read;
  let badCandidates = read.badCandidates;
  if (fields.queue !== undefined) routing.queue = fields.queue;
  if (fields.users !== undefined) routing.users = fields.users;
  if (fields.roles !== undefined) routing.roles = fields.roles;
  if (fields.expiresIn !== undefined) routing.expiresAt = isoAfter(ctx.now, fields.expiresIn);
  if (fields.onExpire !== undefined) routing.onExpire = fields.onExpire;
  if (fields.escalation !== undefined) routing.escalation = fields.escalation;
  if (fields.remind !== undefined) routing.remind = fields.remind;
  if (fields.allowSelfApproval !== undefined) routing.allowSelfApproval = fields.allowSelfApproval;
  if (fields.responseSchema === false) routing.responseSchema = { not: {} };
  else if (fields.responseSchema === true) delete routing.responseSchema;
  else if (fields.responseSchema !== undefined) routing.responseSchema = fields.responseSchema;
  if (fields.quorum !== undefined) routing.quorum = toQuorum(fields.quorum);
  if (fields.stages !== undefined) routing.stages = toStages(fields.stages);
  // A rule that cannot be read or met fails closed, like bad candidates: only the override roles decide, once.
  const ruleIssue = issues.some((i) => i.path === "review.quorum" || i.path === "review.stages") ? "invalid quorum or stages" : unmetRule(routing);
  if (ruleIssue !== undefined) {
    if (ruleIssue !== "invalid quorum or stages") issues.push({ path: "review", message: ruleIssue });
    delete routing.quorum;
    delete routing.stages;
    badCandidates = true;
  }
  if (badCandidates) {
    // Never empty: empty candidate lists would mean "every reviewer".
    routing.users = [];
    routing.roles = [...new Set([ADMIN_ROLE, ...routing.overrideRoles])];
    issues.push({ path: "review", message: `invalid candidates or rule: only the roles ${routing.roles.join(", ")} may answer` });
  }
  return { routing, issues };
}

/** Why the routing's quorum (or a stage's) cannot be met by its candidates, or undefined. */
function unmetRule(routing: Routing): string | undefined {
  if (routing.stages !== undefined) {
    for (const stage of routing.stages) {
      const [users, roles] = stage.users.length === 0 && stage.roles.length === 0 ? [routing.users, routing.roles] : [stage.users, stage.roles];
      const why = unsatisfiable(stage.quorum ?? routing.quorum ?? { mode: "any" }, users, roles);
      if (why !== undefined) return `stage ${JSON.stringify(stage.name)}: ${why}`;
    }
    return undefined;
  }
  return routing.quorum === undefined ? undefined : unsatisfiable(routing.quorum, routing.users, routing.roles);
}

/** One line for the hub's log. */
export function describeRoutingIssues(interruptId: string, issues: readonly RoutingIssue[]): string {
  return `review routing of interrupt ${interruptId}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`;
}
