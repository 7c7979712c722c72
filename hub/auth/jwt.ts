/**
 * Bearer JWT verification (HS256 only) and minting, on `jose`. Without a
 * secret the authenticator runs in open dev mode: everyone is DEV_PRINCIPAL.
 */
import { SignJWT, decodeJwt, decodeProtectedHeader, errors, jwtVerify } from "jose";
import type { JWTPayload } from "jose";
import { AuthConfigError, unauthenticated } from "./errors.ts";
import type { AuthFailure } from "./errors.ts";
import { DEV_PRINCIPAL } from "./principal.ts";
import type { Principal } from "./principal.ts";

const ALG = "HS256";
/** RFC 7518 §3.2: an HS256 key must be at least as long as the hash (256 bits). */
export const MIN_SECRET_BYTES = 32;
const DEFAULT_TENANT = "default";

export type AuthResult = { ok: true; principal: Principal } | AuthFailure;

export interface AuthenticatorOptions {
  /** Omit (undefined) for open dev mode; an empty or short secret throws. */
  secret?: string | undefined;
  issuer?: string | undefined;
  audience?: string | undefined;
  clockToleranceSec?: number | undefined;
}

export interface Authenticator {
  readonly mode: "jwt" | "open";
  /** Never throws: every bad token becomes a 401 with a reason. */
  authenticate(token: string | undefined): Promise<AuthResult>;
}

export interface MintClaims {
  sub: string;
  name?: string | undefined;
  tenant?: string | undefined;
  roles?: readonly string[] | undefined;
  /** A jose time span such as "1h" or "15 min"; omitted means no `exp`. */
  expiresIn?: string | undefined;
  issuer?: string | undefined;
  audience?: string | undefined;
}

function secretKey(secret: string): Uint8Array {
  if (secret === "") {
    throw new AuthConfigError("AUTH_ERR_EMPTY_SECRET", "auth secret is empty; omit it entirely for open dev mode");
  }
  const key = new TextEncoder().encode(secret);
  if (key.byteLength < MIN_SECRET_BYTES) {
    throw new AuthConfigError(
      "AUTH_ERR_WEAK_SECRET",
      `auth secret is ${key.byteLength} bytes; HS256 needs at least ${MIN_SECRET_BYTES}`,
    );
  }
  return key;
}

export function createAuthenticator(options: AuthenticatorOptions = {}): Authenticator {
  const { secret, issuer, audience, clockToleranceSec } = options;
  if (secret === undefined) {
    return { mode: "open", authenticate: async () => ({ ok: true, principal: DEV_PRINCIPAL }) };
  }
  const key = secretKey(secret);
  return {
    mode: "jwt",
    async authenticate(token) {
      if (token === undefined || token.trim() === "") return unauthenticated("missing bearer token");
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token.trim(), key, {
          algorithms: [ALG],
          ...(issuer !== undefined && { issuer }),
          ...(audience !== undefined && { audience }),
          ...(clockToleranceSec !== undefined && { clockTolerance: clockToleranceSec }),
        }));
      } catch (error) {
        return unauthenticated(describeVerifyError(error, token));
      }
      return principalFromClaims(payload);
    },
  };
}

/** Checks our own claims after jose has checked signature and times. */
function principalFromClaims(payload: JWTPayload): AuthResult {
  const { sub, name, tenant, roles } = payload;
  if (typeof sub !== "string" || sub === "") return unauthenticated('token claim "sub" must be a non-empty string');
  if (name !== undefined && typeof name !== "string") return unauthenticated('token claim "name" must be a string');
  // An empty tenant must not quietly become "default": that would widen access.
  if (tenant !== undefined && (typeof tenant !== "string" || tenant === "")) {
    return unauthenticated('token claim "tenant" must be a non-empty string');
  }
  if (roles !== undefined && !isStringArray(roles)) {
    return unauthenticated('token claim "roles" must be an array of strings');
  }
  return {
    ok: true,
    principal: {
      sub,
      name: typeof name === "string" && name !== "" ? name : sub,
      tenant: tenant ?? DEFAULT_TENANT,
      roles: roles ?? [],
    },
  };
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function describeVerifyError(error: unknown, token: string): string {
  if (error instanceof errors.JWTExpired) {
    const exp = error.payload.exp;
    return typeof exp === "number" ? `token expired at ${new Date(exp * 1000).toISOString()}` : "token expired";
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return `token algorithm ${JSON.stringify(headerAlg(token))} is not allowed; only ${ALG} is accepted`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return "token signature is invalid";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "nbf") return "token is not valid yet (nbf)";
    return `token rejected: ${error.message}`;
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) {
    return `malformed token: ${error.message}`;
  }
  return "malformed token";
}

function headerAlg(token: string): unknown {
  try {
    return decodeProtectedHeader(token.trim()).alg;
  } catch {
    return undefined;
  }
}

/** The `exp` of a token (epoch ms) that has been verified already; null without one. */
export function tokenExpiry(token: string | undefined): number | null {
  if (token === undefined) return null;
  try {
    const { exp } = decodeJwt(token.trim());
    return typeof exp === "number" ? exp * 1000 : null;
  } catch {
    return null;
  }
}

/** Signs an HS256 token for the CLI and tests. */
export async function mintToken(claims: MintClaims, secret: string): Promise<string> {
  const { sub, name, tenant, roles, expiresIn, issuer, audience } = claims;
  const jwt = new SignJWT({
    ...(name !== undefined && { name }),
    ...(tenant !== undefined && { tenant }),
    ...(roles !== undefined && { roles: [...roles] }),
  })
    .setProtectedHeader({ alg: ALG, typ: "JWT" })
    .setSubject(sub)
    .setIssuedAt();
  if (expiresIn !== undefined) jwt.setExpirationTime(expiresIn);
  if (issuer !== undefined) jwt.setIssuer(issuer);
  if (audience !== undefined) jwt.setAudience(audience);
  return jwt.sign(secretKey(secret));
}
