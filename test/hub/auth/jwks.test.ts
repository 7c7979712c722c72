/**
 * Identity-provider tokens: RS256/ES256 verified against a JSON Web Key Set
 * served by a local HTTP server on port 0 — cached, refetched for an unknown
 * `kid`, with `iss` and `aud` required — beside the hub's own HS256 tokens.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT, exportJWK, generateKeyPair, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthenticator, mintToken, type AuthResult } from "../../../hub/auth/index.ts";
import { testHub } from "../../support/hub.ts";

const SECRET = "jwks-test-secret-jwks-test-secret-0123";
const ISSUER = "https://idp.example.com/";
const AUDIENCE = "switchboard";

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

let server: Server;
let url: string;
let fetches = 0;
let served: JWK[] = [];
let rsa: KeyPair;
let ec: KeyPair;
let other: KeyPair;

async function publicJwk(pair: KeyPair, kid: string, alg: string): Promise<JWK> {
  return { ...(await exportJWK(pair.publicKey)), kid, alg, use: "sig" };
}

function sign(pair: KeyPair, alg: string, kid: string, claims: Record<string, unknown> = {}, iss = ISSUER, aud: string = AUDIENCE) {
  return new SignJWT({ roles: ["observer"], tenant: "acme", ...claims })
    .setProtectedHeader({ alg, kid })
    .setSubject("ada")
    .setIssuer(iss)
    .setAudience(aud)
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(pair.privateKey);
}

beforeAll(async () => {
  [rsa, ec, other] = await Promise.all([generateKeyPair("RS256"), generateKeyPair("ES256"), generateKeyPair("RS256")]);
  served = [await publicJwk(rsa, "rsa-1", "RS256"), await publicJwk(ec, "ec-1", "ES256")];
  server = createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ keys: served }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function expectPrincipal(result: AuthResult, sub: string): void {
  expect(result).toMatchObject({ ok: true, principal: { sub, tenant: "acme", roles: ["observer"] } });
}

function expect401(result: AuthResult, message: RegExp): void {
  expect(result).toMatchObject({ ok: false, status: 401, code: "unauthenticated" });
  if (!result.ok) expect(result.message).toMatch(message);
}

describe("JWKS tokens", () => {
  it("verifies RS256 and ES256 tokens against the key set, fetching it once", async () => {
    const auth = createAuthenticator({ jwks: { url, issuer: ISSUER, audience: AUDIENCE } });
    expect(auth.mode).toBe("jwt");
    const before = fetches;
    expectPrincipal(await auth.authenticate(await sign(rsa, "RS256", "rsa-1")), "ada");
    expectPrincipal(await auth.authenticate(await sign(ec, "ES256", "ec-1")), "ada");
    expectPrincipal(await auth.authenticate(await sign(rsa, "RS256", "rsa-1")), "ada");
    expect(fetches - before).toBe(1);
  });

  it("requires the issuer and the audience", async () => {
    const auth = createAuthenticator({ jwks: { url, issuer: ISSUER, audience: [AUDIENCE, "other-app"] } });
    expect401(await auth.authenticate(await sign(rsa, "RS256", "rsa-1", {}, "https://evil.example.com/")), /"iss"/);
    expect401(await auth.authenticate(await sign(rsa, "RS256", "rsa-1", {}, ISSUER, "someone-else")), /"aud"/);
    expectPrincipal(await auth.authenticate(await sign(rsa, "RS256", "rsa-1", {}, ISSUER, "other-app")), "ada");
  });

  it("refuses a key that is not in the set, and fetches again for a new kid (key rotation)", async () => {
    const auth = createAuthenticator({ jwks: { url, issuer: ISSUER, audience: AUDIENCE } });
    expectPrincipal(await auth.authenticate(await sign(rsa, "RS256", "rsa-1")), "ada");
    // Signed by a key the provider never published, under a published kid: the signature fails.
    expect401(await auth.authenticate(await sign(other, "RS256", "rsa-1")), /signature is invalid/);
    const before = fetches;
    served = [...served, await publicJwk(other, "rsa-2", "RS256")];
    // jose refetches an unknown kid once its cooldown (30 s after the last fetch) has passed; a
    // fresh authenticator has no cooldown, which is what a rotation looks like after a while.
    const later = createAuthenticator({ jwks: { url, issuer: ISSUER, audience: AUDIENCE } });
    expectPrincipal(await later.authenticate(await sign(other, "RS256", "rsa-2")), "ada");
    expect(fetches).toBeGreaterThan(before);
    served = served.filter((k) => k.kid !== "rsa-2");
  });

  it("keeps HS256 beside the key set, and refuses HS256 signed with a public key (algorithm confusion)", async () => {
    const auth = createAuthenticator({ secret: SECRET, jwks: { url, issuer: ISSUER, audience: AUDIENCE } });
    expect((await auth.authenticate(await mintToken({ sub: "bob", tenant: "acme", roles: ["observer"] }, SECRET))).ok).toBe(true);
    expectPrincipal(await auth.authenticate(await sign(rsa, "RS256", "rsa-1")), "ada");
    const publicPem = new TextEncoder().encode(JSON.stringify(served[0]));
    const forged = await new SignJWT({ roles: ["admin"] }).setProtectedHeader({ alg: "HS256" }).setSubject("mallory").sign(publicPem);
    expect401(await auth.authenticate(forged), /signature is invalid/);
    const jwksOnly = createAuthenticator({ jwks: { url, issuer: ISSUER, audience: AUDIENCE } });
    expect401(await jwksOnly.authenticate(forged), /algorithm "HS256" is not allowed; accepted: RS256, ES256/);
  });

  it("answers 401 with the reason when the key set cannot be fetched, and never throws", async () => {
    const auth = createAuthenticator({ jwks: { url: "http://127.0.0.1:1/jwks.json", issuer: ISSUER, audience: AUDIENCE } });
    expect401(await auth.authenticate(await sign(rsa, "RS256", "rsa-1")), /key set could not be fetched/);
  });

  it("authenticates HTTP requests and WebSocket upgrades of a hub configured with the key set", async () => {
    const hub = await testHub({ jwks: { url, issuer: ISSUER, audience: AUDIENCE } });
    const token = await sign(rsa, "RS256", "rsa-1");
    const ok = await fetch(`${hub.url}/assistants`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    const wrongAudience = await sign(rsa, "RS256", "rsa-1", {}, ISSUER, "another-app");
    const refused = await fetch(`${hub.url}/assistants`, { headers: { authorization: `Bearer ${wrongAudience}` } });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: "unauthenticated", message: expect.stringMatching(/"aud"/) });
  });
});
