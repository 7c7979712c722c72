/** createAuthenticator / mintToken: HS256 only, claim defaults, 401 reasons. */
import { createHmac } from "node:crypto";
import { SignJWT, UnsecuredJWT, decodeJwt, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { AuthConfigError, DEV_PRINCIPAL, createAuthenticator, mintToken } from "../../../hub/auth/index.ts";
import type { AuthResult } from "../../../hub/auth/index.ts";

const SECRET = "a-test-secret-that-is-at-least-32-bytes-long";
const OTHER_SECRET = "another-secret-also-at-least-32-bytes-long!";
const key = new TextEncoder().encode(SECRET);
const auth = createAuthenticator({ secret: SECRET });

function sign(claims: Record<string, unknown>): SignJWT {
  return new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt();
}

function expect401(result: AuthResult, message: RegExp): void {
  expect(result).toMatchObject({ ok: false, status: 401, code: "unauthenticated" });
  if (result.ok) return;
  expect(result.message).toMatch(message);
}

describe("createAuthenticator (jwt mode)", () => {
  it("is in jwt mode when given a secret", () => {
    expect(auth.mode).toBe("jwt");
  });

  it("fills defaults from a token with only sub", async () => {
    const token = await sign({}).setSubject("alice").sign(key);
    expect(await auth.authenticate(token)).toEqual({
      ok: true,
      principal: { sub: "alice", name: "alice", tenant: "default", roles: [] },
    });
  });

  it("keeps name, tenant and roles when present", async () => {
    const token = await mintToken({ sub: "u1", name: "Ada", tenant: "acme", roles: ["reviewer"], expiresIn: "1h" }, SECRET);
    expect(await auth.authenticate(token)).toEqual({
      ok: true,
      principal: { sub: "u1", name: "Ada", tenant: "acme", roles: ["reviewer"] },
    });
  });

  it("tolerates surrounding whitespace", async () => {
    const token = await mintToken({ sub: "u1" }, SECRET);
    expect((await auth.authenticate(`  ${token}\n`)).ok).toBe(true);
  });

  it.each([
    ["undefined", undefined],
    ["an empty string", ""],
    ["whitespace", "   "],
  ])("rejects a missing token (%s)", async (_label, token) => {
    expect401(await auth.authenticate(token), /missing bearer token/);
  });

  it("rejects a token signed with another secret", async () => {
    const token = await mintToken({ sub: "u1" }, OTHER_SECRET);
    expect401(await auth.authenticate(token), /signature is invalid/);
  });

  it("rejects an expired token, saying when it expired", async () => {
    const exp = Math.floor(Date.now() / 1000) - 3600;
    const token = await sign({}).setSubject("u1").setExpirationTime(exp).sign(key);
    expect401(await auth.authenticate(token), new RegExp(`expired at ${new Date(exp * 1000).toISOString()}`));
  });

  it("rejects a token minted with a negative expiresIn", async () => {
    const token = await mintToken({ sub: "u1", expiresIn: "-1h" }, SECRET);
    expect401(await auth.authenticate(token), /expired/);
  });

  it("accepts a recently expired token within clockToleranceSec", async () => {
    const lenient = createAuthenticator({ secret: SECRET, clockToleranceSec: 300 });
    const token = await sign({}).setSubject("u1").setExpirationTime(Math.floor(Date.now() / 1000) - 5).sign(key);
    expect((await lenient.authenticate(token)).ok).toBe(true);
  });

  it("rejects a token that is not valid yet", async () => {
    const token = await sign({}).setSubject("u1").setNotBefore("1h").sign(key);
    expect401(await auth.authenticate(token), /not valid yet/);
  });

  it('rejects alg "none"', async () => {
    const token = new UnsecuredJWT({ sub: "u1", roles: ["admin"] }).encode();
    expect401(await auth.authenticate(token), /algorithm "none" is not allowed; accepted: HS256/);
  });

  it("rejects an RS256 token", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    const token = await new SignJWT({}).setProtectedHeader({ alg: "RS256" }).setSubject("u1").sign(privateKey);
    expect401(await auth.authenticate(token), /algorithm "RS256" is not allowed/);
  });

  it("rejects HS512 even with the right secret", async () => {
    const token = await new SignJWT({}).setProtectedHeader({ alg: "HS512" }).setSubject("u1").sign(key);
    expect401(await auth.authenticate(token), /algorithm "HS512" is not allowed/);
  });

  it.each([
    ["missing sub", {}, /"sub" must be a non-empty string/],
    ["empty sub", { sub: "" }, /"sub" must be a non-empty string/],
    ["numeric sub", { sub: 42 }, /"sub" must be a non-empty string|"sub" claim/],
    ["roles not an array", { sub: "u1", roles: "admin" }, /"roles" must be an array of strings/],
    ["roles with a non-string", { sub: "u1", roles: ["observer", 1] }, /"roles" must be an array of strings/],
    ["empty tenant", { sub: "u1", tenant: "" }, /"tenant" must be a non-empty string/],
    ["numeric tenant", { sub: "u1", tenant: 7 }, /"tenant" must be a non-empty string/],
    ["object name", { sub: "u1", name: { first: "a" } }, /"name" must be a string/],
  ])("rejects bad claims: %s", async (_label, claims, message) => {
    const token = await sign(claims).sign(key);
    expect401(await auth.authenticate(token), message);
  });

  it("defaults an empty name to sub", async () => {
    const token = await sign({ sub: "u1", name: "" }).sign(key);
    expect(await auth.authenticate(token)).toMatchObject({ ok: true, principal: { name: "u1" } });
  });

  it.each(["garbage", "not.a.jwt", "a.b", "....", "a.b.c.d.e"])("rejects a malformed token: %s", async (token) => {
    expect401(await auth.authenticate(token), /malformed token/);
  });

  it("rejects a correctly signed token whose payload is not a JSON object", async () => {
    const head = Buffer.from(JSON.stringify({ alg: "HS256" })).toString("base64url");
    const body = Buffer.from("not json").toString("base64url");
    const mac = createHmac("sha256", key).update(`${head}.${body}`).digest("base64url");
    expect401(await auth.authenticate(`${head}.${body}.${mac}`), /malformed token/);
  });

  it("checks issuer and audience when configured", async () => {
    const strict = createAuthenticator({ secret: SECRET, issuer: "switchboard", audience: "hub" });
    const good = await mintToken({ sub: "u1", issuer: "switchboard", audience: "hub" }, SECRET);
    expect((await strict.authenticate(good)).ok).toBe(true);
    const wrongIssuer = await mintToken({ sub: "u1", issuer: "elsewhere", audience: "hub" }, SECRET);
    expect401(await strict.authenticate(wrongIssuer), /"iss"/);
    const noAudience = await mintToken({ sub: "u1", issuer: "switchboard" }, SECRET);
    expect401(await strict.authenticate(noAudience), /"aud"/);
  });

  it("refuses an empty or short secret at startup", () => {
    expect(() => createAuthenticator({ secret: "" })).toThrow(AuthConfigError);
    expect(() => createAuthenticator({ secret: "short" })).toThrow(/at least 32/);
  });
});

describe("createAuthenticator (open mode)", () => {
  const open = createAuthenticator({});

  it("is open without a secret and returns DEV_PRINCIPAL for any request", async () => {
    expect(open.mode).toBe("open");
    expect(createAuthenticator().mode).toBe("open");
    for (const token of [undefined, "", "garbage", await mintToken({ sub: "u1" }, SECRET)]) {
      expect(await open.authenticate(token)).toEqual({ ok: true, principal: DEV_PRINCIPAL });
    }
  });

  it("acts as the user a dev.<name> token names, with the dev principal's roles; a malformed name is refused", async () => {
    expect(await open.authenticate("dev.rita")).toEqual({ ok: true, principal: { sub: "rita", name: "rita", tenant: "default", roles: ["operator", "reviewer", "observer"] } });
    expect(await open.authenticate(" dev.sam.reyes ")).toMatchObject({ ok: true, principal: { sub: "sam.reyes" } });
    expect(await open.authenticate("dev.dev")).toEqual({ ok: true, principal: DEV_PRINCIPAL });
    for (const bad of ["dev.", "dev.has space", `dev.${"x".repeat(65)}`, "dev.ünï", "dev.a@b"]) {
      expect(await open.authenticate(bad)).toMatchObject({ ok: false, status: 401, message: expect.stringMatching(/dev\.<name>/) });
    }
  });

  it("uses the documented dev principal", () => {
    expect(DEV_PRINCIPAL).toEqual({ sub: "dev", name: "Developer", tenant: "default", roles: ["operator", "reviewer", "observer"] });
    expect(Object.isFrozen(DEV_PRINCIPAL)).toBe(true);
    expect(Object.isFrozen(DEV_PRINCIPAL.roles)).toBe(true);
  });
});

describe("mintToken", () => {
  it("round-trips through the authenticator", async () => {
    const token = await mintToken({ sub: "bob", name: "Bob", tenant: "t1", roles: ["operator", "observer"] }, SECRET);
    expect(await auth.authenticate(token)).toEqual({
      ok: true,
      principal: { sub: "bob", name: "Bob", tenant: "t1", roles: ["operator", "observer"] },
    });
  });

  it("writes HS256 with iat, and exp only when asked", async () => {
    const without = decodeJwt(await mintToken({ sub: "u1" }, SECRET));
    expect(without.iat).toBeTypeOf("number");
    expect(without.exp).toBeUndefined();
    expect(without).not.toHaveProperty("roles");
    const withExp = decodeJwt(await mintToken({ sub: "u1", expiresIn: "1h" }, SECRET));
    expect((withExp.exp ?? 0) - (withExp.iat ?? 0)).toBe(3600);
  });

  it("refuses a short secret", async () => {
    await expect(mintToken({ sub: "u1" }, "short")).rejects.toThrow(AuthConfigError);
  });
});
