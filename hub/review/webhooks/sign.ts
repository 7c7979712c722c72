/**
 * Standard Webhooks signatures: HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`
 * with the endpoint's secret (`whsec_` + base64 of the key bytes), sent as
 * `webhook-signature: v1,<base64>`; the timestamp is seconds since the epoch.
 */
import { createHmac, randomBytes } from "node:crypto";

export const SECRET_PREFIX = "whsec_";

/** The key bytes of a `whsec_…` secret; throws a one-line reason when it is not one. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error(`a webhook secret starts with "${SECRET_PREFIX}" followed by base64`);
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new Error("a webhook secret's part after whsec_ must be base64");
  const key = Buffer.from(b64, "base64");
  if (key.length < 24) throw new Error("a webhook secret's key must be 24 to 64 bytes (base64 of at least 24 random bytes)");
  if (key.length > 64) throw new Error("a webhook secret's key must be 24 to 64 bytes");
  return key;
}

/** A fresh secret (32 random bytes). */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** The three headers of one attempt; `timestampSec` is the attempt's time. */
export function signDelivery(key: Buffer, eventId: string, timestampSec: number, body: string): SignedHeaders {
  const signature = createHmac("sha256", key).update(`${eventId}.${timestampSec}.${body}`).digest("base64");
  return { "webhook-id": eventId, "webhook-timestamp": String(timestampSec), "webhook-signature": `v1,${signature}` };
}
