/**
 * Who is calling, from a request's headers and URL — the one check that HTTP
 * routes and WebSocket upgrades share.
 */
import { tokenFromRequest, type Authenticator, type AuthResult, type HeaderBag } from "./index.ts";

export async function principalOf(auth: Authenticator, headers: HeaderBag, url: URL): Promise<AuthResult> {
  const found = tokenFromRequest(headers, url);
  if (found !== undefined && !found.ok) return found;
  return auth.authenticate(found?.token);
}

/** The thread id in `/threads/:id/stream(/events)`, or null for other paths. */
export function streamThreadId(pathname: string): string | null {
  const match = /^\/threads\/([^/]+)\/stream(?:\/events)?\/?$/.exec(pathname);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}
