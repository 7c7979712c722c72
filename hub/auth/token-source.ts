/**
 * Where a request carries its bearer token, in order of precedence:
 *   1. `Authorization: Bearer <token>` (HTTP, Node clients);
 *   2. `x-api-key: <token>` (what `@langchain/langgraph-sdk` sends for its
 *      `apiKey` option, in both its JS and Python clients: the same bearer token);
 *   3. `?access_token=<token>` (browsers' EventSource and WebSocket; note that
 *      URLs end up in access logs, so prefer short-lived tokens here);
 *   4. a WebSocket subprotocol `bearer.<token>` in `Sec-WebSocket-Protocol`
 *      (browsers: `new WebSocket(url, ["switchboard", "bearer." + token])`).
 *
 * Subprotocol caveat: a browser fails the handshake unless the server echoes
 * one of the offered protocols. The server must therefore select a protocol
 * from the offer (with `ws`, `handleProtocols`): another offered application
 * protocol when there is one, else the `bearer.<token>` entry itself, which
 * `TokenFound.protocol` carries verbatim for that purpose.
 */
import { unauthenticated } from "./errors.ts";
import type { AuthFailure } from "./errors.ts";

export type TokenSourceKind = "authorization" | "api-key" | "query" | "subprotocol";

export interface TokenFound {
  ok: true;
  token: string;
  source: TokenSourceKind;
  /** The offered subprotocol entry the token came from (source "subprotocol"). */
  protocol?: string;
}

/** Node's `IncomingHttpHeaders` fits here, as does a fetch `Headers`. */
export type HeaderBag = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export const SUBPROTOCOL_PREFIX = "bearer.";
export const ACCESS_TOKEN_PARAM = "access_token";
export const API_KEY_HEADER = "x-api-key";

// RFC 6750 b64token; a JWT (base64url segments joined by dots) always fits.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * `undefined` when the request carries no credentials at all; a 401 when it
 * carries some that cannot be a bearer token (they are never skipped over in
 * favour of a lower-precedence source).
 */
export function tokenFromRequest(headers: HeaderBag, url: URL): TokenFound | AuthFailure | undefined {
  const authorization = headerValue(headers, "authorization");
  if (authorization !== undefined) return fromAuthorization(authorization);

  const apiKey = headerValue(headers, API_KEY_HEADER);
  if (apiKey !== undefined) return checked(apiKey.trim(), "api-key", `the ${API_KEY_HEADER} header`);

  const query = url.searchParams.get(ACCESS_TOKEN_PARAM);
  if (query !== null) return checked(query.trim(), "query", `the ${ACCESS_TOKEN_PARAM} query parameter`);

  const offered = headerValue(headers, "sec-websocket-protocol");
  if (offered !== undefined) {
    for (const entry of offered.split(",")) {
      const protocol = entry.trim();
      if (!protocol.startsWith(SUBPROTOCOL_PREFIX)) continue;
      const result = checked(protocol.slice(SUBPROTOCOL_PREFIX.length), "subprotocol", "the bearer subprotocol");
      return result.ok ? { ...result, protocol } : result;
    }
  }
  return undefined;
}

function fromAuthorization(value: string): TokenFound | AuthFailure {
  const trimmed = value.trim();
  const match = /^(\S+)(?:\s+(.*))?$/.exec(trimmed);
  const scheme = match?.[1];
  if (scheme === undefined || scheme.toLowerCase() !== "bearer") {
    const shown = scheme === undefined ? "empty" : `"${scheme}"`;
    return unauthenticated(`Authorization header must use the Bearer scheme (got ${shown})`);
  }
  return checked((match?.[2] ?? "").trim(), "authorization", "the Authorization header");
}

function checked(token: string, source: TokenSourceKind, where: string): TokenFound | AuthFailure {
  if (token === "") return unauthenticated(`empty bearer token in ${where}`);
  if (!B64TOKEN.test(token)) return unauthenticated(`malformed bearer token in ${where}`);
  return { ok: true, token, source };
}

export function headerValue(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return typeof value === "string" ? value : value.join(", ");
  }
  return undefined;
}
