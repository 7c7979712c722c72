/**
 * responseSchema: JSON Schema 2020-12 run by @cfworker/json-schema — what it
 * accepts, refuses, and how it says why; checkSchema refuses what would not
 * mean what its author thinks.
 */
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
    [null, '#: Instance type "null" is invalid. Expected "object".'],
    [{}, '#: Instance does not have required property "decision".'],
    [{ decision: "maybe" }, '#/decision: Instance does not match any of ["approve","reject"].'],
    [{ decision: "approve", extra: 1 }, "#/extra: is not allowed here"],
    [{ decision: "approve", note: "toolong" }, "#/note: String is too long (7 > 5)."],
    [{ decision: "approve", score: 1.5 }, '#/score: Instance type "number" is invalid. Expected "integer".'],
    [{ decision: "approve", score: 11 }, "#/score: 11 is greater than 10."],
    [{ decision: "approve", tags: ["a", "a"] }, "#/tags: Duplicate items at indexes 0 and 1."],
    [{ decision: "approve", tags: ["A"] }, "#/tags/0: String does not match pattern."],
    [{ decision: "approve", tags: ["a", "b", "c"] }, "#/tags: Array has too many items (3 > 2)."],
  ])("refuses %j with %j", (value, message) => {
    expect(validateJson(decision, value)).toBe(message);
  });

  it("handles falsy values, const, combinators and boolean schemas", () => {
    expect(validateJson({ const: 0 }, 0)).toBeUndefined();
    expect(validateJson({ const: 0 }, false)).toBe("#: Instance does not match 0.");
    expect(validateJson({ enum: [null, "", false] }, "")).toBeUndefined();
    expect(validateJson({ type: "number" }, 3)).toBeUndefined();
    expect(validateJson({ type: ["string", "null"] }, null)).toBeUndefined();
    expect(validateJson({ anyOf: [{ type: "string" }, { type: "boolean" }] }, false)).toBeUndefined();
    expect(validateJson({ anyOf: [{ type: "string" }, { type: "boolean" }] }, 1)).toMatch(/does not match any subschemas/);
    expect(validateJson({ oneOf: [{ type: "number" }, { type: "integer" }] }, 1)).toMatch(/exactly one subschema/);
    expect(validateJson({ not: { const: "x" } }, "x")).toMatch(/matched "not" schema/);
    expect(validateJson(true, { anything: 1 })).toBeUndefined();
    expect(validateJson({ not: {} }, 1)).toMatch(/matched "not" schema/);
    expect(validateJson({ multipleOf: 0.5 }, 1.5)).toBeUndefined();
    expect(validateJson({ properties: { "a b": { type: "string" } } }, { "a b": 1 })).toBe('#/a%20b: Instance type "number" is invalid. Expected "string".');
    // 2020-12 beyond the old subset: local $ref, if/then, prefixItems, dependentRequired.
    const refs = { $defs: { yes: { const: true } }, properties: { ok: { $ref: "#/$defs/yes" } } };
    expect(validateJson(refs, { ok: true })).toBeUndefined();
    expect(validateJson(refs, { ok: false })).toBe("#/ok: Instance does not match true.");
    expect(validateJson({ if: { properties: { approve: { const: false } } }, then: { required: ["reason"] } }, { approve: false })).toMatch(/required property "reason"/);
    expect(validateJson({ prefixItems: [{ type: "string" }] }, [1])).toMatch(/^#\/0: /);
    expect(validateJson({ dependentRequired: { a: ["b"] } }, { a: 1 })).toMatch(/"b"/);
    // format is asserted for the formats the library knows.
    expect(validateJson({ format: "email" }, "nope")).toBe('#: String does not match format "email".');
  });
});

describe("checkSchema", () => {
  it("accepts the supported subset with annotations", () => {
    expect(checkSchema({ $schema: "x", title: "t", description: "d", format: "email", ...decision })).toEqual([]);
    expect(checkSchema(true)).toEqual([]);
  });

  it("refuses what is not JSON Schema, or would not mean what it says", () => {
    expect(checkSchema([])).toEqual(["#: a schema must be an object or a boolean"]);
    const refused = (schema: unknown) => {
      const issues = checkSchema(schema);
      expect(issues, JSON.stringify(schema)).toHaveLength(1);
      return issues[0];
    };
    expect(refused({ type: "thing" })).toMatch(/^#\/type: /);
    expect(refused({ properties: { a: { requird: ["x"] } } })).toBe("#/properties/a/requird: not a JSON Schema keyword");
    expect(refused({ pattern: "(" })).toBe('#/pattern: String does not match format "regex".');
    expect(refused({ minLength: -1 })).toBe("#/minLength: -1 is less than 0.");
    expect(refused({ anyOf: [] })).toMatch(/^#\/anyOf: /);
    expect(refused({ items: 3 })).toMatch(/^#\/items: /);
    expect(refused({ $ref: "https://example.com/schema.json" })).toMatch(/^#\/\$ref: /);
    expect(refused({ $ref: "#/$defs/missing" })).toBe('#: $ref "#/$defs/missing" does not resolve inside the schema');
    expect(checkSchema({ $defs: { a: { type: "string" } }, items: { $ref: "#/$defs/a" } })).toEqual([]);
  });
});
