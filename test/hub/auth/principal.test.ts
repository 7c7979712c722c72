/** Role checks: roles are independent, admin implies all. */
import { describe, expect, it } from "vitest";
import { DEV_PRINCIPAL, THREAD_ROLES, canPerform, checkPermission, hasRole } from "../../../hub/auth/index.ts";
import type { Principal, ThreadAction } from "../../../hub/auth/index.ts";

function principal(roles: string[]): Principal {
  return { sub: "u1", name: "U", tenant: "t", roles };
}

describe("hasRole / canPerform", () => {
  it("grants admin every role", () => {
    const admin = principal(["admin"]);
    for (const role of THREAD_ROLES) expect(hasRole(admin, role)).toBe(true);
    expect(hasRole(admin, "admin")).toBe(true);
  });

  it("grants only the roles listed otherwise", () => {
    const reviewer = principal(["reviewer"]);
    expect(hasRole(reviewer, "reviewer")).toBe(true);
    expect(hasRole(reviewer, "observer")).toBe(false);
    expect(hasRole(reviewer, "operator")).toBe(false);
    expect(hasRole(reviewer, "admin")).toBe(false);
    expect(hasRole(principal([]), "observer")).toBe(false);
  });

  it.each<[ThreadAction, string]>([
    ["read", "observer"],
    ["answer", "reviewer"],
    ["operate", "operator"],
  ])("maps %s to the %s role", (action, role) => {
    expect(canPerform(principal([role]), action)).toBe(true);
    expect(canPerform(principal(["something-else"]), action)).toBe(false);
  });

  it("lets the dev principal do everything a thread allows", () => {
    for (const action of ["read", "answer", "operate"] as const) expect(canPerform(DEV_PRINCIPAL, action)).toBe(true);
  });
});

describe("checkPermission", () => {
  it("returns undefined when allowed and a 403 otherwise", () => {
    expect(checkPermission(principal(["operator"]), "operate")).toBeUndefined();
    expect(checkPermission(principal(["observer"]), "answer")).toEqual({
      ok: false,
      status: 403,
      code: "permission_denied",
      message: expect.stringMatching(/"answer" needs the "reviewer" role/),
    });
  });
});
