/** routingOf: the review field, defaults, the hook, and how invalid input is reported. */
import { describe, expect, it } from "vitest";
import { parseDuration, routingOf } from "../../../hub/review/index.ts";
import type { RoutingContext, RoutingDefaults, RoutingHook } from "../../../hub/review/index.ts";
import { T0, iso } from "./fixtures.ts";

const ctx: RoutingContext = { interruptId: "i1", threadId: "t1", runId: "r1", tenant: "acme", namespace: [], node: "review", now: T0 };
const defaults: RoutingDefaults = { queue: "default" };

describe("parseDuration", () => {
  it.each([
    [1500, 1500],
    ["30m", 1_800_000],
    ["2h", 7_200_000],
    ["1h30m", 5_400_000],
    ["45s", 45_000],
    ["250ms", 250],
    ["1.5h", 5_400_000],
    [" 7d ", 604_800_000],
  ])("reads %j as %d ms", (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY, "", "30", "m", "30 minutes", "-1h", "400d", "1h 30m"])("refuses %j", (input) => {
    expect(parseDuration(input)).toBeUndefined();
  });
});

describe("routingOf", () => {
  it("gives the defaults to a payload without a review field, or one that is not an object", () => {
    const expected = { queue: "default", users: [], roles: [], expiresAt: null, allowSelfApproval: false, overrideRoles: ["review-admin"] };
    for (const payload of [undefined, null, 0, "", false, "text", [1], { kind: "review" }]) {
      expect(routingOf(payload, defaults, ctx)).toEqual({ routing: expected, issues: [] });
    }
  });

  it("reads every field of the review field", () => {
    const schema = { type: "object", required: ["ok"], properties: { ok: { type: "boolean" } } };
    const payload = {
      draft: "x",
      review: {
        queue: "legal",
        users: ["alice"],
        roles: ["legal"],
        expiresIn: "30m",
        onExpire: { response: { ok: false } },
        allowSelfApproval: true,
        responseSchema: schema,
      },
    };
    expect(routingOf(payload, defaults, ctx)).toEqual({
      routing: {
        queue: "legal",
        users: ["alice"],
        roles: ["legal"],
        expiresAt: iso(T0 + 1_800_000),
        onExpire: { action: "default", response: { ok: false } },
        allowSelfApproval: true,
        responseSchema: schema,
        overrideRoles: ["review-admin"],
      },
      issues: [],
    });
  });

  it("takes expiresIn in ms, and falsy default responses", () => {
    for (const response of [0, "", false, null]) {
      const { routing, issues } = routingOf({ review: { expiresIn: 60_000, onExpire: { response } } }, defaults, ctx);
      expect(issues).toEqual([]);
      expect(routing.expiresAt).toBe(iso(T0 + 60_000));
      // `{ response }` is what `{ action: "default", response }` was before policies were explicit.
      expect(routing.onExpire).toEqual({ action: "default", response });
    }
  });

  it("applies config defaults, then the hook, then the payload", () => {
    const seen: unknown[] = [];
    const config: RoutingDefaults = {
      queue: "default",
      expiresIn: "1h",
      overrideRoles: ["lead"],
      hook: (c) => {
        seen.push(c);
        return { queue: "from-hook", roles: ["legal"], allowSelfApproval: true };
      },
    };
    const plain = routingOf({ kind: "x" }, config, ctx);
    expect(plain.issues).toEqual([]);
    expect(plain.routing).toEqual({
      queue: "from-hook",
      users: [],
      roles: ["legal"],
      expiresAt: iso(T0 + 3_600_000),
      allowSelfApproval: true,
      overrideRoles: ["lead"],
    });
    expect(seen).toEqual([{ ...ctx, payload: { kind: "x" } }]);

    const own = routingOf({ review: { queue: "mine", allowSelfApproval: false } }, config, ctx);
    expect(own.routing).toMatchObject({ queue: "mine", roles: ["legal"], allowSelfApproval: false });
  });

  it("reports a hook that throws or returns nonsense, and ignores it", () => {
    const throwing = routingOf({}, { queue: "q", hook: () => { throw new Error("boom"); } }, ctx);
    expect(throwing.routing.queue).toBe("q");
    expect(throwing.issues).toEqual([{ path: "hook", message: "threw: boom; ignored" }]);
    const bad = routingOf({}, { queue: "q", hook: () => ({ queue: 42 }) as never }, ctx);
    expect(bad.routing.queue).toBe("q");
    expect(bad.issues[0]?.path).toBe("hook");
  });

  it("keeps the valid fields of a bad review field and reports the others", () => {
    const { routing, issues } = routingOf(
      { review: { queue: "legal", expiresIn: "soon", allowSelfApproval: "yes", colour: "red" } },
      defaults,
      ctx,
    );
    expect(routing).toMatchObject({ queue: "legal", expiresAt: null, allowSelfApproval: false, users: [], roles: [] });
    expect(issues.map((i) => i.path)).toEqual(["review.expiresIn", "review.allowSelfApproval", "review.colour"]);
    expect(issues[0]?.message).toMatch(/positive duration/);
    expect(issues[2]?.message).toMatch(/unknown field/);
  });

  it("still routes to the default queue when the queue is invalid", () => {
    const { routing, issues } = routingOf({ review: { queue: "" } }, defaults, ctx);
    expect(routing.queue).toBe("default");
    expect(issues.map((i) => i.path)).toEqual(["review.queue"]);
  });

  it("reports a review field that is not an object", () => {
    const { routing, issues } = routingOf({ review: "legal" }, defaults, ctx);
    expect(routing.queue).toBe("default");
    expect(issues).toEqual([{ path: "review", message: "must be an object; the default routing applies" }]);
  });

  it("fails closed on invalid candidates: only admin and override roles, never every reviewer", () => {
    for (const review of [{ users: "alice" }, { roles: [""] }, { users: ["alice"], roles: 7 }]) {
      const { routing, issues } = routingOf({ review }, defaults, ctx);
      expect(routing.users).toEqual([]);
      expect(routing.roles).toEqual(["admin", "review-admin"]);
      expect(issues.at(-1)?.message).toMatch(/invalid candidates/);
    }
    const none = routingOf({ review: { users: 3 } }, { queue: "q", overrideRoles: [] }, ctx);
    expect(none.routing.roles).toEqual(["admin"]);
  });

  it("refuses a responseSchema with malformed keywords or a $ref that does not resolve", () => {
    const { routing, issues } = routingOf(
      { review: { responseSchema: { type: "object", properties: { a: { $ref: "#/x" } }, required: "a" } } },
      defaults,
      ctx,
    );
    expect(routing.responseSchema).toBeUndefined();
    expect(issues.map((i) => i.path)).toEqual(["review.responseSchema"]);
    expect(issues[0]?.message).toMatch(/^#\/required: Instance type "string" is invalid\. Expected "array"/);
    const dangling = routingOf({ review: { responseSchema: { properties: { a: { $ref: "#/x" } } } } }, defaults, ctx);
    expect(dangling.routing.responseSchema).toBeUndefined();
    expect(dangling.issues.map((i) => i.message)).toEqual(['#: $ref "#/x" does not resolve inside the schema']);
  });

  it("takes boolean response schemas", () => {
    expect(routingOf({ review: { responseSchema: true } }, defaults, ctx).routing.responseSchema).toBeUndefined();
    expect(routingOf({ review: { responseSchema: false } }, defaults, ctx).routing.responseSchema).toEqual({ not: {} });
  });

  it("reports an invalid default expiresIn", () => {
    const { routing, issues } = routingOf({}, { queue: "q", expiresIn: "never" }, ctx);
    expect(routing.expiresAt).toBeNull();
    expect(issues[0]?.path).toBe("defaults.expiresIn");
  });

  it("reads the timer fields: explicit expiry policies, escalation steps in `after` order, reminders", () => {
    const review = {
      onExpire: { action: "deny", reason: "  too late  " },
      escalation: [{ after: "2h", users: ["boss"] }, { after: 600_000, queue: "managers", roles: ["manager"] }],
      remind: { every: "15m", max: 3 },
    };
    expect(routingOf({ review }, defaults, ctx)).toMatchObject({
      routing: {
        onExpire: { action: "deny", reason: "too late" },
        escalation: [
          { afterMs: 600_000, queue: "managers", roles: ["manager"] },
          { afterMs: 7_200_000, users: ["boss"] },
        ],
        remind: { everyMs: 900_000, max: 3 },
      },
      issues: [],
    });
    expect(routingOf({ review: { onExpire: { action: "keep" } } }, defaults, ctx).routing.onExpire).toEqual({ action: "keep" });
    expect(routingOf({ review: { onExpire: { action: "deny" } } }, defaults, ctx).routing.onExpire).toEqual({ action: "deny" });
    for (const [field, value] of [
      ["onExpire", { action: "keep", response: 1 }],
      ["onExpire", { action: "default" }],
      ["onExpire", { action: "ignore" }],
      ["escalation", []],
      ["escalation", [{ after: "1h" }]],
      ["escalation", [{ after: "soon", queue: "x" }]],
      ["escalation", [{ after: "1h", queue: "*" }]],
      ["escalation", Array.from({ length: 11 }, () => ({ after: "1h", queue: "x" }))],
      ["remind", { every: "999ms" }],
      ["remind", { every: "1m", max: 0 }],
      ["remind", { every: "1m", max: 1001 }],
      ["remind", { every: "1m", often: true }],
    ] as const) {
      const { routing, issues } = routingOf({ review: { [field]: value } }, defaults, ctx);
      expect(issues.map((i) => i.path), JSON.stringify(value)).toEqual([`review.${field}`]);
      expect(routing[field]).toBeUndefined();
    }
  });

  it("lets a hook return timers in the Routing's own form, or as the payload writes them; the hub's policy is the default", () => {
    const hook = () => ({ escalation: [{ afterMs: 60_000, queue: "backup" }], remind: { everyMs: 5_000 } });
    expect(routingOf({}, { ...defaults, hook, onExpire: { action: "keep" } }, ctx)).toMatchObject({
      routing: { escalation: [{ afterMs: 60_000, queue: "backup" }], remind: { everyMs: 5_000 }, onExpire: { action: "keep" } },
      issues: [],
    });
    // A hook in a JavaScript config may write durations as the payload does.
    const written = (() => ({ escalation: [{ after: "1m", queue: "backup" }], onExpire: { action: "default", response: "no" } })) as unknown as RoutingHook;
    expect(routingOf({}, { ...defaults, hook: written, onExpire: { action: "keep" } }, ctx).routing).toMatchObject({
      escalation: [{ afterMs: 60_000, queue: "backup" }],
      onExpire: { action: "default", response: "no" },
    });
  });
});

describe("routingOf: quorum and stages", () => {
  it("reads a quorum and ordered stages from the review field and from the hook", () => {
    const { routing, issues } = routingOf(
      { review: { users: ["rita", "sam", "tom"], quorum: { mode: "k_of_n", k: 2, rejectEnds: false }, stages: [{ name: "finance" }, { name: "manager", roles: ["manager"], quorum: { mode: "any" } }] } },
      defaults,
      ctx,
    );
    expect(issues).toEqual([]);
    expect(routing.quorum).toEqual({ mode: "k_of_n", k: 2, rejectEnds: false });
    expect(routing.stages).toEqual([{ name: "finance", users: [], roles: [] }, { name: "manager", users: [], roles: ["manager"], quorum: { mode: "any" } }]);
    const hooked = routingOf({}, { ...defaults, hook: () => ({ users: ["a", "b"], quorum: { mode: "all" } }) }, ctx);
    expect(hooked.issues).toEqual([]);
    expect(hooked.routing.quorum).toEqual({ mode: "all" });
  });

  it.each([
    ["an unknown mode", { quorum: { mode: "most" } }],
    ["k_of_n without k", { quorum: { mode: "k_of_n" } }],
    ["k on all", { users: ["a"], quorum: { mode: "all", k: 1 } }],
    ["k of 0", { quorum: { mode: "k_of_n", k: 0 } }],
    ["all without users", { roles: ["legal"], quorum: { mode: "all" } }],
    ["k above the users, no roles", { users: ["a", "b"], quorum: { mode: "k_of_n", k: 3 } }],
    ["a stage that cannot be met", { stages: [{ name: "x", users: ["a"], quorum: { mode: "k_of_n", k: 2 } }] }],
    ["duplicate stage names", { stages: [{ name: "x" }, { name: "x" }] }],
    ["no stages", { stages: [] }],
  ])("fails closed on %s: no rule, only admin and the override roles answer, once", (_, review) => {
    const { routing, issues } = routingOf({ review }, defaults, ctx);
    expect(routing.quorum).toBeUndefined();
    expect(routing.stages).toBeUndefined();
    expect(routing.users).toEqual([]);
    expect(routing.roles).toEqual(["admin", "review-admin"]);
    expect(issues.length).toBeGreaterThan(0);
  });

  it("keeps k_of_n over roles: their members are not counted in advance", () => {
    const { routing, issues } = routingOf({ review: { roles: ["finance"], quorum: { mode: "k_of_n", k: 5 } } }, defaults, ctx);
    expect(issues).toEqual([]);
    expect(routing).toMatchObject({ roles: ["finance"], quorum: { mode: "k_of_n", k: 5 } });
  });
});
