/**
 * Answer links: a signed, expiring token per review item and candidate,
 * `sbl1.<payload>.<mac>` (base64url; the MAC is HMAC-SHA256 of the payload
 * part with the hub's link secret). The payload names the tenant, the item,
 * the candidate (sub, name, roles), the expiry and a random nonce — the
 * nonce is what the store marks used, once (uses.ts). Pure, no I/O.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const PREFIX = "sbl1";
/** Longest token accepted (a URL segment; bounds the work before the MAC check). */
export const MAX_LINK_BYTES = 2048;

export interface LinkClaims {
  tenant: string;
  interruptId: string;
  sub: string;
  name: string;
  /** Roles the link's holder answers with (`reviewer` always; never `admin`). */
  roles: string[];
  /** Epoch ms. */
  expiresAt: number;
  nonce: string;
}

export type LinkCheck = { ok: true; claims: LinkClaims } | { ok: false; reason: "invalid" | "expired"; claims?: LinkClaims };

const b64 = (buf: Buffer): string => buf.toString("base64url");

function mac(key: Buffer, payload: string): Buffer {
  return createHmac("sha256", key).update(`${PREFIX}.${payload}`).digest();
}

export function mintLink(key: Buffer, claims: Omit<LinkClaims, "nonce">, nonce: string = b64(randomBytes(18))): { token: string; claims: LinkClaims } {
  const full: LinkClaims = { ...claims, nonce };
  const payload = b64(Buffer.from(JSON.stringify({ t: full.tenant, i: full.interruptId, s: full.sub, n: full.name, r: full.roles, e: full.expiresAt, k: full.nonce })));
  return { token: `${PREFIX}.${payload}.${b64(mac(key, payload))}`, claims: full };
}

/** Checks the MAC first (a tampered token says nothing), then the expiry. */
export function checkLink(key: Buffer, token: string, now: number): LinkCheck {
  if (Buffer.byteLength(token) > MAX_LINK_BYTES) return { ok: false, reason: "invalid" };
  const [prefix, payload, signature, extra] = token.split(".");
  if (prefix !== PREFIX || payload === undefined || signature === undefined || extra !== undefined) return { ok: false, reason: "invalid" };
  const expected = mac(key, payload);
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "invalid" };
  let claims: LinkClaims;
  try {
    const p = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    const roles = p["r"];
    if (typeof p["t"] !== "string" || typeof p["i"] !== "string" || typeof p["s"] !== "string" || typeof p["n"] !== "string" || typeof p["e"] !== "number" || typeof p["k"] !== "string" || !Array.isArray(roles) || !roles.every((r) => typeof r === "string")) {
      return { ok: false, reason: "invalid" };
    }
    claims = { tenant: p["t"], interruptId: p["i"], sub: p["s"], name: p["n"], roles: roles as string[], expiresAt: p["e"], nonce: p["k"] };
  } catch {
    return { ok: false, reason: "invalid" };
  }
  if (claims.expiresAt <= now) return { ok: false, reason: "expired", claims };
  return { ok: true, claims };
}

/** The link key: the configured secret, or one derived from the hub's JWT secret (never the JWT key itself). */
export function linkKey(secret: string | undefined, jwtSecret: string | undefined): Buffer | undefined {
  if (secret !== undefined) return Buffer.from(secret, "utf8");
  if (jwtSecret !== undefined) return createHmac("sha256", jwtSecret).update("switchboard answer links v1").digest();
  return undefined;
}
