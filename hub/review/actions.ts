/**
 * Per-action decisions in one interrupt. LangChain's human-in-the-loop
 * middleware raises ONE interrupt for several tool calls
 * (`{ action_requests, review_configs }`, resumed with `{ decisions: [...] }`
 * in the same order); Agent Inbox raises a `HumanInterrupt` list, resumed with
 * a list of `HumanResponse`s. The hub makes each action its own review item
 * (`<interrupt id>.<index>`), routed on its own (`review.actions[name]`),
 * answered only with the response types its config allows, and answers the
 * interrupt once — with every decision, in order and in the interrupt's
 * shape — when the last of them is decided. Pure functions: the stores call
 * them inside their atomic sections (transitions.ts).
 */
import { isRecord } from "../protocol/index.ts";
import { validateJson } from "./json-schema.ts";
import { routingOf } from "./routing.ts";
import type { RoutingContext, RoutingDefaults, RoutingIssue } from "./routing.ts";
import { expiryValue } from "./timers.ts";
import type { ActionFormat, ActionRef, JsonSchema, ReviewItem, Routing } from "./types.ts";

/** More actions than this in one interrupt are not split (the interrupt stays one item). */
export const MAX_ACTIONS_PER_INTERRUPT = 64;

const HITL_DECISIONS = ["approve", "edit", "reject", "respond"] as const;
/** Agent Inbox's config flags and the response type each allows. */
const INBOX_FLAGS = [
  ["allow_accept", "accept"],
  ["allow_edit", "edit"],
  ["allow_respond", "response"],
  ["allow_ignore", "ignore"],
] as const;

/** One proposed action: what its item shows and how it may be answered. */
export interface ProposedAction {
  name: string;
  args: Record<string, unknown>;
  /** The item's payload: a one-action request in the interrupt's own shape. */
  payload: unknown;
  allowed: string[];
  argsSchema?: JsonSchema;
}

export interface ActionRequest {
  format: ActionFormat;
  actions: ProposedAction[];
}

/** The keys of each middleware casing. */
const HITL_KEYS = {
  hitl: { requests: "action_requests", configs: "review_configs", name: "action_name", allowed: "allowed_decisions", schema: "args_schema", edited: "edited_action" },
  "hitl-camel": { requests: "actionRequests", configs: "reviewConfigs", name: "actionName", allowed: "allowedDecisions", schema: "argsSchema", edited: "editedAction" },
} as const;

function hitlActions(payload: Record<string, unknown>, format: "hitl" | "hitl-camel"): ActionRequest | undefined {
  const keys = HITL_KEYS[format];
  const requests = payload[keys.requests];
  const configs = payload[keys.configs];
  if (!Array.isArray(requests) || !Array.isArray(configs) || requests.length === 0) return undefined;
  const actions: ProposedAction[] = [];
  for (const request of requests) {
    if (!isRecord(request) || typeof request["name"] !== "string" || !isRecord(request["args"])) return undefined;
    const name = request["name"];
    // Configs are per tool name (two calls of one tool share one).
    const config = configs.find((c): c is Record<string, unknown> => isRecord(c) && c[keys.name] === name);
    const declared = config?.[keys.allowed];
    if (config === undefined || !Array.isArray(declared)) return undefined;
    const allowed = HITL_DECISIONS.filter((d) => declared.includes(d));
    const schema = config[keys.schema];
    const action: ProposedAction = { name, args: request["args"], payload: { [keys.requests]: [request], [keys.configs]: [config] }, allowed };
    if (isRecord(schema)) action.argsSchema = schema;
    actions.push(action);
  }
  return { format, actions };
}

function inboxActions(payload: unknown[]): ActionRequest | undefined {
  if (payload.length === 0) return undefined;
  const actions: ProposedAction[] = [];
  for (const entry of payload) {
    if (!isRecord(entry)) return undefined;
    const request = entry["action_request"];
    const config = entry["config"];
    if (!isRecord(request) || typeof request["action"] !== "string" || !isRecord(config)) return undefined;
    const args = isRecord(request["args"]) ? request["args"] : {};
    const allowed = INBOX_FLAGS.filter(([flag]) => config[flag] === true).map(([, type]) => type);
    actions.push({ name: request["action"], args, payload: [entry], allowed });
  }
  return { format: "agent-inbox", actions };
}

/** The actions of an interrupt value, when it is a multi-action request; undefined for any other question. */
export function actionsOf(payload: unknown): ActionRequest | undefined {
  const found = Array.isArray(payload)
    ? inboxActions(payload)
    : isRecord(payload)
      ? (hitlActions(payload, "hitl") ?? hitlActions(payload, "hitl-camel"))
      : undefined;
  return found !== undefined && found.actions.length <= MAX_ACTIONS_PER_INTERRUPT ? found : undefined;
}

/** Item id of action `index` of interrupt `interruptId`. */
export function actionItemId(interruptId: string, index: number): string {
  return `${interruptId}.${index}`;
}

/**
 * Each action's routing: the interrupt's (hub defaults, hook, `review`
 * field), then `review.actions[<name>]` over it, field by field. The hook
 * is called once per action, with `ctx.action` saying which.
 */
export function routeActions(
  payload: unknown,
  request: ActionRequest,
  defaults: RoutingDefaults,
  ctx: RoutingContext,
): { routings: Routing[]; issues: RoutingIssue[] } {
  const issues: RoutingIssue[] = [];
  const note = (issue: RoutingIssue) => {
    if (!issues.some((i) => i.path === issue.path && i.message === issue.message)) issues.push(issue);
  };
  const review = isRecord(payload) ? payload["review"] : undefined;
  const perAction = isRecord(review) && review["actions"] !== undefined ? review["actions"] : undefined;
  const overlays: Record<string, unknown> = isRecord(perAction) ? perAction : {};
  if (perAction !== undefined && !isRecord(perAction)) note({ path: "review.actions", message: "must be an object of routing per action name; ignored" });
  const names = new Set(request.actions.map((a) => a.name));
  for (const key of Object.keys(overlays)) {
    if (!names.has(key)) note({ path: `review.actions.${key}`, message: `no action of this interrupt is named ${key}; ignored` });
  }
  const count = request.actions.length;
  const routings = request.actions.map((action, index) => {
    const own = Object.hasOwn(overlays, action.name) ? overlays[action.name] : undefined;
    let field: unknown = review;
    if (own !== undefined && !isRecord(own)) note({ path: `review.actions.${action.name}`, message: "must be an object; ignored" });
    else if (own !== undefined) field = { ...(isRecord(review) ? review : {}), ...own };
    const actionCtx: RoutingContext = { ...ctx, interruptId: actionItemId(ctx.interruptId, index), action: { interruptId: ctx.interruptId, index, count, name: action.name } };
    const { routing, issues: its } = routingOf(payload, defaults, actionCtx, field);
    for (const issue of its) {
      const key = issue.path.startsWith("review.") ? issue.path.slice("review.".length).split(".")[0] : undefined;
      const fromOwn = isRecord(own) && key !== undefined && Object.hasOwn(own, key);
      note(fromOwn ? { ...issue, path: `review.actions.${action.name}.${issue.path.slice("review.".length)}` } : issue);
    }
    return routing;
  });
  return { routings, issues };
}

export type ActionAnswerCheck = { ok: true; value: unknown } | { ok: false; message: string };

function refuse(message: string): ActionAnswerCheck {
  return { ok: false, message };
}

/** A one-action answer may come wrapped as the whole shape (`{ decisions: [d] }`, `[response]`): unwrapped here. */
function unwrap(action: ActionRef, value: unknown): unknown {
  if (action.format === "agent-inbox") return Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (isRecord(value) && Array.isArray(value["decisions"]) && value["decisions"].length === 1 && value["type"] === undefined) return value["decisions"][0];
  return value;
}

function checkArgs(action: ActionRef, label: string, edited: unknown, nameKey: "name" | "action"): ActionAnswerCheck | undefined {
  if (!isRecord(edited) || typeof edited[nameKey] !== "string" || !isRecord(edited["args"])) {
    return refuse(`an edit of ${label} needs ${nameKey === "name" ? "{ name, args }" : "args: { action, args }"} with args an object`);
  }
  if (edited[nameKey] !== action.name) return refuse(`an edit of ${label} may change its args, not the action (${JSON.stringify(edited[nameKey])} is not ${action.name})`);
  const invalid = action.argsSchema === undefined ? undefined : validateJson(action.argsSchema, edited["args"]);
  return invalid === undefined ? undefined : refuse(`the edited args of ${label} do not match its args_schema: ${invalid}`);
}

/**
 * Whether `value` answers this action as its config allows; the value to
 * store (unwrapped, Agent Inbox's missing `args` made null) or why not.
 */
export function checkActionAnswer(itemId: string, action: ActionRef, value: unknown): ActionAnswerCheck {
  const label = `action ${action.name} (${itemId}, ${action.index + 1} of ${action.count})`;
  const answer = unwrap(action, value);
  const type = isRecord(answer) ? answer["type"] : undefined;
  const allowed = action.allowed.length === 0 ? "no response (its config allows none)" : action.allowed.join(", ");
  if (!isRecord(answer) || typeof type !== "string") return refuse(`${label} is answered with { type: ${action.allowed.map((t) => JSON.stringify(t)).join(" | ")}, ... }`);
  if (!action.allowed.includes(type)) return refuse(`${label} allows ${allowed}; "${type}" is not one of them`);
  if (action.format === "agent-inbox") {
    const args = answer["args"] ?? null;
    if ((type === "accept" || type === "ignore") && args !== null) return refuse(`"${type}" on ${label} takes args: null`);
    if (type === "response" && (typeof args !== "string" || args.trim() === "")) return refuse(`"response" on ${label} needs args: the text of the response`);
    if (type === "edit") {
      const bad = checkArgs(action, label, args, "action");
      if (bad) return bad;
    }
    return { ok: true, value: { ...answer, args } };
  }
  const message = answer["message"];
  if (type === "reject" && message !== undefined && typeof message !== "string") return refuse(`"reject" on ${label} takes an optional message string`);
  if (type === "respond" && (typeof message !== "string" || message.trim() === "")) return refuse(`"respond" on ${label} needs a message`);
  if (type === "edit") {
    const key = HITL_KEYS[action.format].edited;
    const bad = checkArgs(action, label, answer[key], "name");
    if (bad) return bad;
  }
  return { ok: true, value: answer };
}

/** The one resume value of a group: the decisions in action order, in the interrupt's shape. */
export function groupResumeValue(format: ActionFormat, decisions: readonly unknown[]): unknown {
  return format === "agent-inbox" ? [...decisions] : { decisions: [...decisions] };
}

/** Whether an item counts as decided for its group: answered, or expired with a default or a denial. */
function decided(item: ReviewItem): boolean {
  return item.status === "answered" || (item.status === "expired" && expiryValue(item) !== undefined);
}

/**
 * Ids of the groups (interrupt ids) among `items` whose every action is
 * decided and none taken by a resume yet: only whole groups resume.
 */
export function completeGroups(items: readonly ReviewItem[]): Set<string> {
  const seen = new Map<string, { count: number; decided: number; fresh: boolean }>();
  for (const item of items) {
    if (item.action === undefined) continue;
    const group = seen.get(item.action.interruptId) ?? { count: item.action.count, decided: 0, fresh: true };
    if (decided(item)) group.decided++;
    if (item.resumedAt !== null) group.fresh = false;
    seen.set(item.action.interruptId, group);
  }
  return new Set([...seen].filter(([, g]) => g.fresh && g.decided === g.count).map(([id]) => id));
}

/**
 * An answer to the interrupt itself (`{ decisions: [...] }`, a list of
 * responses), as a client that knows nothing of per-action items sends it:
 * one answer per action, in order, each then decided on its own.
 */
export function splitGroupAnswer(interruptId: string, action: ActionRef, value: unknown): { ok: true; values: unknown[] } | { ok: false; message: string } {
  const list = action.format === "agent-inbox" ? value : isRecord(value) ? value["decisions"] : undefined;
  const shape = action.format === "agent-inbox" ? "a list of responses" : "{ decisions: [...] }";
  if (!Array.isArray(list) || list.length !== action.count) {
    return { ok: false, message: `interrupt ${interruptId} asks about ${action.count} actions: answer it with ${shape} of ${action.count}, in order, or answer each action's item (${interruptId}.0 … ${interruptId}.${action.count - 1})` };
  }
  return { ok: true, values: list };
}
