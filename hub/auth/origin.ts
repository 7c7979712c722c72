/**
 * Which web pages may talk to the hub: the one check HTTP requests and
 * WebSocket upgrades share, before authentication. A browser sends `Origin`
 * on cross-site requests (and on every WebSocket handshake); a page of
 * another site is refused unless its origin is configured
 * (`SWITCHBOARD_ALLOWED_ORIGINS`). Requests without `Origin` (servers, CLIs,
 * the SDK in Node) and same-origin pages (the web app the hub serves at `/`)
 * pass. A hub bound to a loopback interface also refuses a `Host` that is not
 * a loopback name, so a page on a DNS-rebinding domain cannot reach it.
 */
import { permissionDenied, type AuthFailure } from "./errors.ts";
import { headerValue, type HeaderBag } from "./token-source.ts";

export interface OriginPolicy {
  /** Exact origins allowed besides the hub's own; "*" allows every page. */
  readonly allowed: ReadonlySet<string>;
  /** True while the hub listens on loopback only: then `Host` must name a loopback host. */
  loopbackOnly: boolean;
}

export function originPolicy(allowed: readonly string[] = []): OriginPolicy {
  return { allowed: new Set(allowed), loopbackOnly: true };
}

const LOOPBACK_HOSTNAMES = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** `host[:port]` → hostname, as the URL parser reads it (brackets kept for IPv6). */
function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/** Undefined when the request may go on; a 403 otherwise. */
export function checkOrigin(headers: HeaderBag, policy: OriginPolicy): AuthFailure | undefined {
  const host = headerValue(headers, "host");
  const origin = headerValue(headers, "origin");
  if (policy.loopbackOnly && host !== undefined) {
    const name = hostnameOf(host);
    const listed = [...policy.allowed].some((o) => o !== "*" && safeHost(o) === host.toLowerCase());
    if ((name === undefined || !LOOPBACK_HOSTNAMES.test(name)) && !listed) {
      return permissionDenied(`host ${JSON.stringify(host)} is not this hub's: it listens on a loopback interface, reach it as localhost or 127.0.0.1`);
    }
  }
  if (origin === undefined) return undefined;
  if (policy.allowed.has("*") || policy.allowed.has(origin)) return undefined;
  if (host !== undefined && origin !== "null" && safeHost(origin) === host.toLowerCase()) return undefined;
  return permissionDenied(`requests from pages of ${origin} are not allowed: add the origin to SWITCHBOARD_ALLOWED_ORIGINS (allowedOrigins) to let that site call the hub`);
}

function safeHost(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
}
