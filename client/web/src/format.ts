/**
 * Words for people: a one-line summary of an interrupt payload, ages
 * ("3 s ago"), countdowns ("in 4 min"), durations, and names from actors.
 */
import { isRecord, type QuorumProgressData } from "../../../hub/protocol/index.ts";
import { printable } from "../../index.ts";


/** Fields that say what is asked, in the order a summary prefers them. */
const QUESTION_FIELDS = ["question", "title", "summary", "description", "prompt", "message", "instructions"] as const;
/** Prose the question is about: its start is the summary when nothing asks in words. */
const PROSE_FIELDS = ["draft", "text", "content", "body"] as const;
/** Fields naming who an item is for or by ("Review by r1"). */
const PERSON_FIELDS = ["who", "reviewer", "assignee", "user", "author", "owner"] as const;
/** Routing and shape fields that say nothing about what is asked. */
const QUIET_FIELDS = new Set(["review", "kind", "type", "id", "config"]);

function clip(text: string, max: number): string {
  // Control and bidi characters of an agent's payload are shown, not obeyed (they could reorder the line).
  const flat = printable(text.replace(/\s+/g, " ").trim());
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  // End on a whole word unless that throws away much of the line.
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd().replace(/[,;:]$/, "")}…`;
}

/** "send_email" → "Send email"; "needsApproval" → "Needs approval". */
export function words(key: string): string {
  const spaced = key
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
  return spaced.replace(/^./, (c) => c.toUpperCase());
}

/** A value inside a one-line summary: short scalars as they are, structures by their size. */
function brief(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(clip(value, 40));
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  if (Array.isArray(value)) return value.length === 0 ? "[]" : `[${value.length}]`;
  if (isRecord(value)) return Object.keys(value).length === 0 ? "{}" : "{…}";
  return String(value);
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value : undefined);

/** The Agent Inbox `action_request` of a payload, as a call: `send_email(to: "ada@…", subject: "Launch")`. */
function actionCall(value: Record<string, unknown>): string | undefined {
  const request = value["action_request"];
  if (!isRecord(request) || typeof request["action"] !== "string") return undefined;
  const args = isRecord(request["args"]) ? Object.entries(request["args"]) : [];
  return `${request["action"]}(${args.map(([k, v]) => `${k}: ${brief(v)}`).join(", ")})`;
}

/** LangChain's human-in-the-loop request as calls: `issue_refund(order: "A-1027", amount: 120)`. */
function hitlCalls(value: Record<string, unknown>): string | undefined {
  const requests = value["action_requests"] ?? value["actionRequests"];
  if (!Array.isArray(requests) || requests.length === 0) return undefined;
  const calls = requests.map((r) => {
    if (!isRecord(r) || typeof r["name"] !== "string") return "?";
    const args = isRecord(r["args"]) ? Object.entries(r["args"]) : [];
    return `${r["name"]}(${args.map(([k, v]) => `${k}: ${brief(v)}`).join(", ")})`;
  });
  return calls.length === 1 ? calls[0] : `${calls.length} actions: ${calls.join("; ")}`;
}

function summarizeRecord(value: Record<string, unknown>): string {
  const call = actionCall(value) ?? hitlCalls(value);
  if (call !== undefined) return call;
  for (const field of QUESTION_FIELDS) {
    const found = text(value[field]);
    if (found !== undefined) return found;
  }
  for (const field of PROSE_FIELDS) {
    const found = text(value[field]);
    if (found !== undefined) return found;
  }
  const kind = text(value["kind"]) ?? text(value["type"]);
  const personField = PERSON_FIELDS.find((f) => text(value[f]) !== undefined);
  const head = kind === undefined ? undefined : `${words(kind)}${personField ? ` by ${String(value[personField])}` : ""}`;
  const facts = Object.entries(value)
    .filter(([k, v]) => !QUIET_FIELDS.has(k) && v !== undefined && !(head !== undefined && k === personField))
    .map(([k, v]) => `${words(k).toLowerCase()} ${typeof v === "string" ? clip(v, 40) : brief(v)}`);
  if (head !== undefined) return [head, ...facts].join(" · ");
  return facts.length > 0 ? facts.join(" · ").replace(/^./, (c) => c.toUpperCase()) : "Empty question";
}

/**
 * A readable line for a payload, for inbox rows and headings: the question in
 * words, the start of the draft it is about, an Agent Inbox action as a call
 * (`send_email(to: "ada@…")`), a kind and who it is for ("Review by r1"), or
 * the payload's fields in words — never raw JSON.
 */
export function summarize(payload: unknown, max = 140): string {
  if (payload === undefined) return "";
  if (typeof payload === "string") return clip(payload, max) || "Empty question";
  if (Array.isArray(payload)) {
    // Agent Inbox graphs raise a one-element list of requests.
    if (payload.length === 1) return summarize(payload[0], max);
    if (payload.length === 0) return "Empty list";
    return clip(`${payload.length} requests: ${payload.map((p) => summarize(p, 60)).join("; ")}`, max);
  }
  if (isRecord(payload)) return clip(summarizeRecord(payload), max);
  return clip(`Value ${String(payload)}`, max);
}

export function ago(at: number | undefined, now: number): string {
  if (at === undefined) return "";
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

/** Time left until `at`: "in 42 s", "in 3 min", or "expired". */
/** `past`: the word once `at` has passed — "overdue" for an item whose expiry policy keeps it pending. */
export function countdown(at: number | null | undefined, now: number, past = "expired"): string {
  if (at === null || at === undefined) return "";
  const s = Math.round((at - now) / 1000);
  if (s <= 0) return past;
  if (s < 60) return `in ${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `in ${m} min ${s % 60 > 0 && m < 5 ? `${s % 60} s` : ""}`.trimEnd();
  const h = Math.floor(m / 60);
  return h < 48 ? `in ${h} h ${m % 60} min` : `in ${Math.floor(h / 24)} d`;
}

export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "";
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function clockTime(at: number | null | undefined): string {
  if (at === null || at === undefined) return "";
  return new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? `${parts[0]?.[0] ?? ""}${parts.at(-1)?.[0] ?? ""}` : name.slice(0, 2);
  return letters.toUpperCase();
}

/** A stable, calm hue per person (avatars). */
export function hueOf(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) % 360;
  return h;
}

export function shortId(id: string, length = 8): string {
  return id.length <= length + 1 ? id : `${id.slice(0, length)}…`;
}

/**
 * The actions a multi-action request proposes, by name, in order — LangChain's
 * human-in-the-loop request (`action_requests` with `review_configs`) or Agent
 * Inbox's `HumanInterrupt` list — or undefined for any other question. The hub
 * makes each action its own review item, `<interrupt_id>.<index>`.
 */
export function requestActions(payload: unknown): string[] | undefined {
  if (Array.isArray(payload)) {
    const names = payload.map((entry) => (isRecord(entry) && isRecord(entry["action_request"]) && isRecord(entry["config"]) ? entry["action_request"]["action"] : undefined));
    return names.length > 0 && names.every((n): n is string => typeof n === "string") ? names : undefined;
  }
  if (!isRecord(payload)) return undefined;
  const requests = payload["action_requests"] ?? payload["actionRequests"];
  const configs = payload["review_configs"] ?? payload["reviewConfigs"];
  if (!Array.isArray(requests) || !Array.isArray(configs) || requests.length === 0) return undefined;
  const names = requests.map((r) => (isRecord(r) ? r["name"] : undefined));
  return names.every((n): n is string => typeof n === "string") ? names : undefined;
}

/** `2 of 3 approved: Rita, Sam` (and the stage, and who rejected): a quorum item's progress, in the inbox and on its page. */
export function progressText(p: QuorumProgressData): string {
  const names = p.approvers.map((n) => printable(n)).join(", ");
  const stage = p.stages > 1 ? ` · stage ${p.stage + 1} of ${p.stages}${p.stage_name ? ` (${printable(p.stage_name)})` : ""}` : "";
  const rejected = p.rejected > 0 ? ` · rejected by ${(p.rejecters ?? []).map((n) => printable(n)).join(", ")}` : "";
  return `${p.approved} of ${p.required} approved${names ? `: ${names}` : ""}${stage}${rejected}`;
}
