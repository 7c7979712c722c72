/**
 * Words for people: a one-line summary of an interrupt payload, ages
 * ("3 s ago"), countdowns ("in 4 min"), durations, and names from actors.
 */

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Fields that say what is asked, in the order a summary prefers them. */
const SUMMARY_FIELDS = ["question", "description", "title", "summary", "prompt", "message", "draft", "text", "content"] as const;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** A readable line for a payload: its question, its draft's start, the action asked for, or compact JSON. */
export function summarize(payload: unknown, max = 140): string {
  if (typeof payload === "string") return clip(payload, max);
  const value = Array.isArray(payload) && payload.length === 1 ? payload[0] : payload;
  if (isRecord(value)) {
    const request = value["action_request"];
    if (isRecord(request) && typeof request["action"] === "string") {
      const what = typeof value["description"] === "string" ? `: ${value["description"]}` : "";
      return clip(`${request["action"]}${what}`, max);
    }
    for (const field of SUMMARY_FIELDS) {
      const text = value[field];
      if (typeof text === "string" && text.trim() !== "") return clip(text, max);
    }
    const kind = typeof value["kind"] === "string" ? `${value["kind"]} ` : "";
    const rest = Object.fromEntries(Object.entries(value).filter(([k]) => k !== "review" && k !== "kind"));
    return clip(`${kind}${JSON.stringify(rest)}`, max);
  }
  return clip(JSON.stringify(payload) ?? "", max);
}

/** The payload's `kind`, when it names one ("review"). */
export function kindOf(payload: unknown): string | undefined {
  return isRecord(payload) && typeof payload["kind"] === "string" ? payload["kind"] : undefined;
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
export function countdown(at: number | null | undefined, now: number): string {
  if (at === null || at === undefined) return "";
  const s = Math.round((at - now) / 1000);
  if (s <= 0) return "expired";
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
