/** The responseSchema subset: what it accepts, refuses, and how it says why. */
import { describe, expect, it } from "vitest";
import { checkSchema, validateJson } from "../../../hub/review/index.ts";

const decision = {
  type: "object",
  required: ["decision"],
  additionalProperties: false,
  properties: {
    decision: { enum: ["approve", "reject"] },
    note: { type: "string", maxLength: 5 },
    score: { type: "integer", minimum: 0, maximum: 10 },
    tags: { type: "array", items: { type: "string", pattern: "^[a-z]+$" }, uniqueItems: true, maxItems: 2 },
  },
};

describe("validateJson", () => {
  it.each([
    [{ decision: "approve" }],
    [{ decision: "reject", note: "ünï✓", score: 0, tags: [] }],
    [{ decision: "approve", tags: ["a", "b"] }],
  ])("accepts %j", (value) => {
    expect(validateJson(decision, value)).toBeUndefined();
  });

  it.each([
    [null, "$: must be object, got null"],
    [{}, "$.decision: is required"],
    [{ decision: "maybe" }, '$.decision: must be one of ["approve","reject"]'],
    [{ decision: "approve", extra: 1 }, "$.extra: is not allowed"],
    [{ decision: "approve", note: "toolong" }, "$.note: must have at most 5 characters"],
    [{ decision: "approve", score: 1.5 }, "$.score: must be integer, got number"],
    [{ decision: "approve", score: 11 }, "$.score: must be <= 10"],
    [{ decision: "approve", tags: ["a", "a"] }, "$.tags[1]: duplicates an earlier item"],
    [{ decision: "approve", tags: ["A"] }, "$.tags[0]: must match /^[a-z]+$/"],
    [{ decision: "approve", tags: ["a", "b", "c"] }, "$.tags: must have at most 2 items"],
  ])("refuses %j with %j", (value, message) => {
    expect(validateJson(decision, value)).toBe(message);
  });

  it("handles falsy values, const, combinators and boolean schemas", () => {
    expect(validateJson({ const: 0 }, 0)).toBeUndefined();
    expect(validateJson({ const: 0 }, false)).toBe("$: must be 0");
    expect(validateJson({ enum: [null, "", false] }, "")).toBeUndefined();
    expect(validateJson({ type: "number" }, 3)).toBeUndefined();
    expect(validateJson({ type: ["string", "null"] }, null)).toBeUndefined();
    expect(validateJson({ anyOf: [{ type: "string" }, { type: "boolean" }] }, false)).toBeUndefined();
    expect(validateJson({ anyOf: [{ type: "string" }, { type: "boolean" }] }, 1)).toMatch(/matches none/);
    expect(validateJson({ oneOf: [{ type: "number" }, { type: "integer" }] }, 1)).toMatch(/exactly one/);
    expect(validateJson({ not: { const: "x" } }, "x")).toMatch(/forbidden/);
    expect(validateJson(true, { anything: 1 })).toBeUndefined();
    expect(validateJson({ not: {} }, 1)).toMatch(/forbidden/);
    expect(validateJson({ multipleOf: 0.5 }, 1.5)).toBeUndefined();
    expect(validateJson({ properties: { "a b": { type: "string" } } }, { "a b": 1 })).toBe('$["a b"]: must be string, got integer');
  });
});

describe("checkSchema", () => {
  it("accepts the supported subset with annotations", () => {
    expect(checkSchema({ $schema: "x", title: "t", description: "d", format: "email", ...decision })).toEqual([]);
    expect(checkSchema(true)).toEqual([]);
  });

  it("names unsupported and malformed keywords by path", () => {
    expect(
      checkSchema({ type: "thing", properties: { a: { if: {} } }, pattern: "(", minLength: -1, anyOf: [], items: 3 }),
    ).toEqual([
      "#/type: must be a type name or a list of them",
      '#/properties/a/if: keyword "if" is not supported',
      expect.stringMatching(/^#\/pattern: /),
      "#/minLength: must be a non-negative integer",
      "#/anyOf: must be a non-empty array of schemas",
      "#/items: a schema must be an object or a boolean",
    ]);
  });
});
