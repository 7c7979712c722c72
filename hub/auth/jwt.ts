/**
 * Bearer JWT verification and minting, on `jose`: HS256 with the hub's own
 * secret, and RS256/ES256 tokens of an identity provider verified against its
 * JSON Web Key Set (fetched on first use, cached, refetched for an unknown
 * `kid`), with its `iss` and `aud` required. Without either, the
 * authenticator runs in open dev mode: everyone is DEV_PRINCIPAL.
 */
import { SignJWT, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify } from "jose";
import type { JWTPayload, JWTVerifyOptions } from "jose";
import { DEV_AS_NAME, DEV_AS_PREFIX } from "../protocol/index.ts";
import { AuthConfigError, unauthenticated } from "./errors.ts";
import type { AuthFailure } from "./errors.ts";
import { DEV_PRINCIPAL } from "./principal.ts";
import type { Principal } from "./principal.ts";

const ALG = "HS256";
/** What an identity provider's key set may sign with (asymmetric only: the key set is public). */
export const JWKS_ALGORITHMS = ["RS256", "ES256"] as const;
/** How long a fetched key set is used before it is fetched again. */
export const DEFAULT_JWKS_CACHE_MS = 10 * 60_000;
/** RFC 7518 §3.2: an HS256 key must be at least as long as the hash (256 bits). */
export const MIN_SECRET_BYTES = 32;
const DEFAULT_TENANT = "default";

export type AuthResult = { ok: true; principal: Principal } | AuthFailure;

export interface JwksOptions {
  url: string;
  issuer: string;
  audience: string | readonly string[];
  cacheMaxAgeMs?: number | undefined;
  /** Abort a key-set fetch after this long (default 5 s). */
  timeoutMs?: number | undefined;
}

export interface AuthenticatorOptions {
  /** Omit (undefined) with no `jwks` for open dev mode; an empty or short secret throws. */
  secret?: string | undefined;
  /** Identity-provider tokens, RS256/ES256, beside the secret's HS256 ones. */
  jwks?: JwksOptions | undefined;
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
  const { secret, jwks, issuer, audience, clockToleranceSec } = options;
  if (secret === undefined && jwks === undefined) {
    return { mode: "open", authenticate: async (raw) => devPrincipalOf(raw) };
  }
  const key = secret === undefined ? undefined : secretKey(secret);
  const keySet = jwks && createRemoteJWKSet(new URL(jwks.url), {
    cacheMaxAge: jwks.cacheMaxAgeMs ?? DEFAULT_JWKS_CACHE_MS,
    timeoutDuration: jwks.timeoutMs ?? 5_000,
  });
  const tolerance = clockToleranceSec !== undefined ? { clockTolerance: clockToleranceSec } : {};
  const accepted = [...(key ? [ALG] : []), ...(keySet ? JWKS_ALGORITHMS : [])];
  return {
    mode: "jwt",
    async authenticate(raw) {
      if (raw === undefined || raw.trim() === "") return unauthenticated("missing bearer token");
      const token = raw.trim();
      const alg = headerAlg(token);
      let payload: JWTPayload;
      try {
        if (alg === ALG && key) {
          const checks: JWTVerifyOptions = { algorithms: [ALG], ...(issuer !== undefined && { issuer }), ...(audience !== undefined && { audience }), ...tolerance };
          ({ payload } = await jwtVerify(token, key, checks));
        } else if (keySet && jwks && typeof alg === "string" && (JWKS_ALGORITHMS as readonly string[]).includes(alg)) {
          const checks: JWTVerifyOptions = { algorithms: [...JWKS_ALGORITHMS], issuer: jwks.issuer, audience: [jwks.audience].flat(), ...tolerance };
          ({ payload } = await jwtVerify(token, keySet, checks));
        } else if (alg === undefined) {
          return unauthenticated("malformed token: its header cannot be read");
        } else {
          return unauthenticated(`token algorithm ${JSON.stringify(alg)} is not allowed; accepted: ${accepted.join(", ")}`);
        }
      } catch (error) {
        return unauthenticated(describeVerifyError(error, token, accepted));
      }
      return principalFromClaims(payload);
    },
  };
}

/**
 * Who a request of open dev mode is: DEV_PRINCIPAL, or with `dev.<name>` the
 * user named (to try routing, quorums and self-approval rules as several
 * people on one machine). Anything else — no token, a JWT out of habit — is
 * DEV_PRINCIPAL; a malformed `dev.` name is refused, saying what is allowed.
 */
function devPrincipalOf(raw: string | undefined): AuthResult {
  const token = raw?.trim() ?? "";
  if (!token.startsWith(DEV_AS_PREFIX)) return { ok: true, principal: DEV_PRINCIPAL };
  const name = token.slice(DEV_AS_PREFIX.length);
  if (!DEV_AS_NAME.test(name)) return unauthenticated(`in open dev mode a token "${DEV_AS_PREFIX}<name>" acts as that user; a name is 1–64 letters, digits, _ . -`);
  if (name === DEV_PRINCIPAL.sub) return { ok: true, principal: DEV_PRINCIPAL };
  return { ok: true, principal: Object.freeze({ sub: name, name, tenant: DEV_PRINCIPAL.tenant, roles: DEV_PRINCIPAL.roles }) };
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

function describeVerifyError(error: unknown, token: string, accepted: readonly string[]): string {
  if (error instanceof errors.JWTExpired) {
    const exp = error.payload.exp;
    return typeof exp === "number" ? `token expired at ${new Date(exp * 1000).toISOString()}` : "token expired";
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return `token algorithm ${JSON.stringify(headerAlg(token))} is not allowed; accepted: ${accepted.join(", ")}`;
  }
  if (error instanceof errors.JWKSNoMatchingKey) return "no key of the identity provider's key set matches the token's kid";
  if (error instanceof errors.JWKSTimeout) return "the identity provider's key set could not be fetched in time; try again";
  if (error instanceof errors.JWKSInvalid || error instanceof errors.JOSEError && error.code === "ERR_JOSE_GENERIC") {
    return `the identity provider's key set could not be used: ${error.message}`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return "token signature is invalid";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "nbf") return "token is not valid yet (nbf)";
    return `token rejected: ${error.message}`;
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) {
    return `malformed token: ${error.message}`;
  }
  // A fetch failure of the key set (network, HTTP status) is a plain Error from jose's fetch.
  if (!(error instanceof errors.JOSEError) && error instanceof Error) return `the identity provider's key set could not be fetched: ${error.message}`;
  return "malformed token";
}

function headerAlg(token: string): string | undefined {
  try {
    return decodeProtectedHeader(token.trim()).alg ?? "none";
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
