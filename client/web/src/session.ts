/**
 * Sign-in state of the page: the token (kept in sessionStorage, so it dies
 * with the tab), what its claims say (subject, name, roles, expiry — read for
 * display only; the hub verifies it), and the one-time hand-over of a token in
 * the URL fragment that `switchboard token --link` prints (`/#token=…`): read
 * once, stored, removed from the address bar.
 */

export const TOKEN_KEY = "switchboard.token";

export interface TokenClaims {
  sub: string | undefined;
  name: string | undefined;
  roles: readonly string[];
  /** Epoch ms, or null when the token has no `exp`. */
  expiresAt: number | null;
}

function base64UrlDecode(part: string): string {
  const base64 = part.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(part.length / 4) * 4, "=");
  const binary = atob(base64);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** The claims of a JWT, or null when it is not one (no signature check: the hub does that). */
export function readClaims(token: string): TokenClaims | null {
  const [, payload] = token.trim().split(".");
  if (payload === undefined) return null;
  try {
    const claims: unknown = JSON.parse(base64UrlDecode(payload));
    if (typeof claims !== "object" || claims === null) return null;
    const get = (key: string): unknown => Reflect.get(claims, key);
    const exp = get("exp");
    const roles = get("roles");
    return {
      sub: typeof get("sub") === "string" ? String(get("sub")) : undefined,
      name: typeof get("name") === "string" ? String(get("name")) : undefined,
      roles: Array.isArray(roles) ? roles.filter((r): r is string => typeof r === "string") : [],
      expiresAt: typeof exp === "number" ? exp * 1000 : null,
    };
  } catch {
    return null;
  }
}

export function isExpired(claims: TokenClaims | null, now: number = Date.now()): boolean {
  return claims?.expiresAt != null && claims.expiresAt <= now;
}

/**
 * Takes a token handed over in the fragment (`#token=…`, optionally followed by
 * `&next=#/route`), stores it and cleans the address bar. Returns whether one was found.
 */
export function adoptTokenFromUrl(location: Location = window.location, history: History = window.history): boolean {
  const hash = location.hash.replace(/^#/, "");
  if (!hash.startsWith("token=")) return false;
  const params = new URLSearchParams(hash);
  const token = params.get("token");
  const next = params.get("next");
  history.replaceState(null, "", `${location.pathname}${location.search}${next && next.startsWith("#/") ? next : "#/"}`);
  if (token === null || token.trim() === "") return false;
  storeToken(token.trim());
  return true;
}

export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/**
 * Open dev mode: who this tab acts as (`dev.<name>` as its token: the hub
 * takes it for that user, with every role), to try routing and quorums as
 * several people on one machine. Null: the dev principal.
 */
export const DEV_AS_KEY = "switchboard.devAs";

export function storedDevAs(): string | null {
  try {
    return sessionStorage.getItem(DEV_AS_KEY);
  } catch {
    return null;
  }
}

export function storeDevAs(name: string | null): void {
  if (name === null) sessionStorage.removeItem(DEV_AS_KEY);
  else sessionStorage.setItem(DEV_AS_KEY, name);
}
