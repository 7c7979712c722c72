/** The pure authorization rules, one by one. */
import { describe, expect, it } from "vitest";
import type { Principal } from "../../../hub/auth/index.ts";
import { mayAnswer, mayClaim, mayRelease, mayView } from "../../../hub/review/index.ts";
import { T0, alice, bob, carol, eve, iso, item, olga, rita, root, sam } from "./fixtures.ts";

const noRoles: Principal = { sub: "nora", name: "Nora", tenant: "acme", roles: [] };
const claimedByBob = (overrides: Parameters<typeof item>[0] = {}) =>
  item({ status: "claimed", claim: { by: { sub: "bob", name: "Bob" }, until: iso(T0 + 60_000) }, ...overrides });

describe("mayAnswer", () => {
  it("lets any reviewer of the tenant answer an item without candidates", () => {
    for (const p of [alice, bob, carol, rita, root]) expect(mayAnswer(p, item(), T0)).toEqual({ ok: true });
  });

  it.each([
    ["another tenant", eve, item(), /another tenant/],
    ["an observer", olga, item(), /needs the "reviewer" role/],
    ["no roles at all", noRoles, item(), /needs the "reviewer" role/],
    ["a non-candidate by user", bob, item({ routing: { users: ["alice"] } }), /not a candidate/],
    ["a non-candidate by role", alice, item({ routing: { roles: ["legal"] } }), /not a candidate/],
    ["the run's starter", sam, item(), /started this run/],
    ["an observer named as candidate", olga, item({ routing: { users: ["olga"] } }), /needs the "reviewer" role/],
  ])("refuses %s with permission_denied", (_, principal, subject, message) => {
    const verdict = mayAnswer(principal, subject, T0);
    expect(verdict).toMatchObject({ ok: false, code: "permission_denied" });
    if (!verdict.ok) expect(verdict.message).toMatch(message);
  });

  it("takes candidates by user or by role", () => {
    const subject = item({ routing: { users: ["alice"], roles: ["legal"] } });
    expect(mayAnswer(alice, subject, T0).ok).toBe(true);
    expect(mayAnswer(carol, subject, T0).ok).toBe(true);
    expect(mayAnswer(bob, subject, T0).ok).toBe(false);
    // admin is a candidate everywhere
    expect(mayAnswer(root, subject, T0).ok).toBe(true);
  });

  it("lets the starter answer only when self-approval is allowed — admins included", () => {
    expect(mayAnswer(sam, item({ routing: { allowSelfApproval: true } }), T0)).toEqual({ ok: true });
    const adminStarter = { ...root, sub: "sam" };
    expect(mayAnswer(adminStarter, item(), T0)).toMatchObject({ code: "permission_denied" });
  });

  it("names the winner of an answered item, and the state of a final one", () => {
    const answered = item({ status: "answered", answer: { value: 1, by: { sub: "bob", name: "Bob" }, at: iso(T0) } });
    expect(mayAnswer(alice, answered, T0)).toMatchObject({ code: "already_answered", winner: { sub: "bob", name: "Bob" }, answeredAt: iso(T0) });
    expect(mayAnswer(alice, item({ status: "expired" }), T0)).toMatchObject({ code: "interrupt_expired" });
    expect(mayAnswer(alice, item({ status: "cancelled" }), T0)).toMatchObject({ code: "interrupt_cancelled" });
    // A non-candidate learns nothing about the winner.
    expect(mayAnswer(eve, answered, T0)).toMatchObject({ code: "permission_denied" });
  });

  it("treats a pending item past its deadline as expired", () => {
    const due = item({ expiresAt: iso(T0 + 1000) });
    expect(mayAnswer(alice, due, T0 + 999).ok).toBe(true);
    expect(mayAnswer(alice, due, T0 + 1000)).toMatchObject({ code: "interrupt_expired" });
  });

  it("blocks answering over a live claim, except for the holder, override roles and admin", () => {
    expect(mayAnswer(alice, claimedByBob(), T0)).toMatchObject({ code: "claim_held", claimedBy: { sub: "bob" }, until: iso(T0 + 60_000) });
    expect(mayAnswer(bob, claimedByBob(), T0).ok).toBe(true);
    expect(mayAnswer(rita, claimedByBob(), T0).ok).toBe(true);
    expect(mayAnswer(root, claimedByBob(), T0).ok).toBe(true);
    // a lapsed lease holds nothing
    expect(mayAnswer(alice, claimedByBob(), T0 + 60_000).ok).toBe(true);
    // override roles come from the routing
    expect(mayAnswer(alice, claimedByBob({ routing: { overrideRoles: ["reviewer"] } }), T0).ok).toBe(true);
  });
});

describe("mayClaim and mayRelease", () => {
  it("follows the answer rules for who may claim", () => {
    for (const p of [eve, olga, sam]) expect(mayClaim(p, item(), T0)).toMatchObject({ code: "permission_denied" });
    expect(mayClaim(bob, item({ routing: { users: ["alice"] } }), T0)).toMatchObject({ code: "permission_denied" });
    expect(mayClaim(alice, item(), T0)).toEqual({ ok: true });
  });

  it("lets the holder renew, and nobody else take a live claim — not even an overrider", () => {
    expect(mayClaim(bob, claimedByBob(), T0).ok).toBe(true);
    expect(mayClaim(alice, claimedByBob(), T0)).toMatchObject({ code: "claim_held" });
    expect(mayClaim(rita, claimedByBob(), T0)).toMatchObject({ code: "claim_held" });
    expect(mayClaim(alice, claimedByBob(), T0 + 60_000).ok).toBe(true);
  });

  it("lets the holder or an overrider release; others are refused", () => {
    expect(mayRelease(bob, claimedByBob(), T0).ok).toBe(true);
    expect(mayRelease(rita, claimedByBob(), T0).ok).toBe(true);
    expect(mayRelease(alice, claimedByBob(), T0)).toMatchObject({ code: "permission_denied" });
    expect(mayRelease(eve, claimedByBob(), T0)).toMatchObject({ code: "permission_denied" });
    expect(mayRelease(alice, item(), T0).ok).toBe(true);
    expect(mayRelease(bob, claimedByBob({ status: "cancelled" }), T0)).toMatchObject({ code: "interrupt_cancelled" });
  });
});

describe("mayView", () => {
  it("shows items to observers and candidates of the tenant only", () => {
    const subject = item({ routing: { users: ["alice"] } });
    expect(mayView(olga, subject).ok).toBe(true);
    expect(mayView(alice, subject).ok).toBe(true);
    expect(mayView(rita, subject).ok).toBe(true);
    expect(mayView(bob, subject)).toMatchObject({ code: "permission_denied" });
    expect(mayView(eve, subject)).toMatchObject({ code: "permission_denied" });
  });
});
