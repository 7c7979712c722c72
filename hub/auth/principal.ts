/**
 * Who is asking: the authenticated principal and the role checks the hub
 * makes per thread. Roles are independent; only `admin` implies the others.
 */
import { permissionDenied } from "./errors.ts";
import type { AuthFailure } from "./errors.ts";

export interface Principal {
  readonly sub: string;
  readonly name: string;
  readonly tenant: string;
  readonly roles: readonly string[];
  /** Where this request came from (set by the transport; audited with what the principal does). */
  readonly source?: ActionSource;
}

/** The transport, peer address and user agent of a request, as the audit records them. */
export interface ActionSource {
  /** `ws`: a WebSocket session; `http`: REST or POST /commands; `link`: an answer link. */
  transport: "ws" | "http" | "link";
  /** The TCP peer (no proxy header is trusted); null when unknown. */
  remote: string | null;
  /** The User-Agent header, at most USER_AGENT_MAX characters; null when none. */
  userAgent: string | null;
}

export const USER_AGENT_MAX = 256;

/** A principal with where its request came from. */
export function withRequestSource(principal: Principal, transport: ActionSource["transport"], remote: string | undefined, userAgent: string | undefined): Principal {
  const agent = userAgent === undefined || userAgent === "" ? null : userAgent.replace(/[\x00-\x1f\x7f]/g, "?").slice(0, USER_AGENT_MAX);
  return { ...principal, source: { transport, remote: remote ?? null, userAgent: agent } };
}

export const THREAD_ROLES = ["observer", "reviewer", "operator"] as const;
export type ThreadRole = (typeof THREAD_ROLES)[number];
export const ADMIN_ROLE = "admin";
export type Role = ThreadRole | typeof ADMIN_ROLE;

/** What each role lets a principal do on a thread. */
export const THREAD_ACTIONS = {
  read: "observer",
  answer: "reviewer",
  operate: "operator",
} as const satisfies Record<string, ThreadRole>;
export type ThreadAction = keyof typeof THREAD_ACTIONS;

/** Open dev mode only: every request is this principal. Frozen, shared. */
export const DEV_PRINCIPAL: Principal = Object.freeze({
  sub: "dev",
  name: "Developer",
  tenant: "default",
  roles: Object.freeze(["operator", "reviewer", "observer"]),
});

export function hasRole(principal: Principal, role: Role): boolean {
  return principal.roles.includes(role) || principal.roles.includes(ADMIN_ROLE);
}

export function canPerform(principal: Principal, action: ThreadAction): boolean {
  // Whoever may answer or operate on a thread may also watch it: a reviewer
  // must see the question (`switchboard token --roles reviewer` must work).
  if (action === "read") return hasRole(principal, "observer") || hasRole(principal, "reviewer") || hasRole(principal, "operator");
  return hasRole(principal, THREAD_ACTIONS[action]);
}

/** `undefined` when allowed, else a 403 the hub sends as is. */
export function checkPermission(principal: Principal, action: ThreadAction): AuthFailure | undefined {
  if (canPerform(principal, action)) return undefined;
  const role = THREAD_ACTIONS[action];
  return permissionDenied(`"${action}" needs the "${role}" role; ${principal.sub} has [${principal.roles.join(", ")}]`);
}
