/**
 * People on a page: avatars of who is watching (presence, identity stamped by
 * the hub), and an actor's name.
 */
import type { ReactNode } from "react";
import { printable, type PresenceEntry } from "../../../index.ts";
import { hueOf, initials } from "../format.ts";

export interface Person {
  sub: string;
  name: string;
}

/** The distinct people in a presence list (a person with two tabs counts once). */
export function peopleOf(entries: readonly PresenceEntry[], where?: (state: Record<string, unknown>) => boolean): Person[] {
  const seen = new Map<string, Person>();
  for (const { state } of entries) {
    if (where && !where(state)) continue;
    const user: unknown = state["user"];
    if (typeof user !== "object" || user === null) continue;
    const sub: unknown = Reflect.get(user, "sub");
    const name: unknown = Reflect.get(user, "name");
    // A display name comes from a token: its control and bidi characters are shown escaped, not obeyed.
    if (typeof sub === "string" && !seen.has(sub)) seen.set(sub, { sub, name: printable(typeof name === "string" ? name : sub) });
  }
  return [...seen.values()];
}

export function Avatar({ person, size = "md" }: { person: Person; size?: "sm" | "md" }): ReactNode {
  return (
    <span className={`avatar avatar-${size}`} style={{ background: `hsl(${hueOf(person.sub)} 45% 42%)` }} title={person.name} aria-hidden="true">
      {initials(person.name)}
    </span>
  );
}

export function Avatars({ people, label, max = 5 }: { people: readonly Person[]; label: string; max?: number }): ReactNode {
  if (people.length === 0) return null;
  const names = people.map((p) => p.name).join(", ");
  return (
    <span className="avatars" role="img" aria-label={`${label}: ${names}`}>
      {people.slice(0, max).map((p) => (
        <Avatar key={p.sub} person={p} size="sm" />
      ))}
      {people.length > max && <span className="avatar avatar-sm avatar-more">+{people.length - max}</span>}
    </span>
  );
}
