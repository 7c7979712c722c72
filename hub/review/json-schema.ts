/**
 * `review.responseSchema`: JSON Schema (draft 2020-12) validated by
 * @cfworker/json-schema — an interpreter, so a schema taken from an interrupt
 * payload is never compiled to code (the web app's answer form validates with
 * the same library, so a form and the hub agree on what is valid).
 *
 * checkSchema() is what the library does not do: it refuses a schema that
 * would not mean what its author thinks — a keyword that is not JSON Schema
 * (a typo like `requird` would silently assert nothing), a malformed value
 * (`minLength: -1`, a bad `pattern`), or a `$ref` that does not resolve inside
 * the schema (nothing is fetched). The shapes are checked by a small
 * meta-schema, itself run by the library.
 */
import { Validator, dereference, type OutputUnit, type Schema } from "@cfworker/json-schema";
import { isRecord } from "../protocol/index.ts";

/** A JSON Schema object (booleans `true`/`false` are accepted as schemas too). */
export type JsonSchema = { readonly [keyword: string]: unknown };

const DRAFT = "2020-12";
const TYPES = ["null", "boolean", "object", "array", "number", "integer", "string"];

const SCHEMA = { $ref: "#/$defs/schema" };
const SCHEMA_MAP = { type: "object", additionalProperties: SCHEMA };
const SCHEMA_LIST = { type: "array", minItems: 1, items: SCHEMA };
const COUNT = { type: "integer", minimum: 0 };
const NUMBER = { type: "number" };
const STRING = { type: "string" };

/** Every keyword of 2020-12 the validator implements or that only annotates, with the shape of its value. */
const KEYWORDS: Record<string, unknown> = {
  // core
  $schema: STRING,
  $id: STRING,
  $anchor: STRING,
  $comment: STRING,
  $defs: SCHEMA_MAP,
  definitions: SCHEMA_MAP,
  // Only references inside the schema: nothing is ever fetched.
  $ref: { type: "string", pattern: "^#" },
  // applicators
  allOf: SCHEMA_LIST,
  anyOf: SCHEMA_LIST,
  oneOf: SCHEMA_LIST,
  not: SCHEMA,
  if: SCHEMA,
  then: SCHEMA,
  else: SCHEMA,
  properties: SCHEMA_MAP,
  patternProperties: { type: "object", propertyNames: { format: "regex" }, additionalProperties: SCHEMA },
  additionalProperties: SCHEMA,
  unevaluatedProperties: SCHEMA,
  propertyNames: SCHEMA,
  dependentSchemas: SCHEMA_MAP,
  prefixItems: SCHEMA_LIST,
  items: SCHEMA,
  contains: SCHEMA,
  unevaluatedItems: SCHEMA,
  // validation
  type: { anyOf: [{ enum: TYPES }, { type: "array", minItems: 1, uniqueItems: true, items: { enum: TYPES } }] },
  enum: { type: "array" },
  const: true,
  multipleOf: { type: "number", exclusiveMinimum: 0 },
  minimum: NUMBER,
  maximum: NUMBER,
  exclusiveMinimum: NUMBER,
  exclusiveMaximum: NUMBER,
  minLength: COUNT,
  maxLength: COUNT,
  pattern: { type: "string", format: "regex" },
  minItems: COUNT,
  maxItems: COUNT,
  uniqueItems: { type: "boolean" },
  minContains: COUNT,
  maxContains: COUNT,
  minProperties: COUNT,
  maxProperties: COUNT,
  required: { type: "array", uniqueItems: true, items: STRING },
  dependentRequired: { type: "object", additionalProperties: { type: "array", uniqueItems: true, items: STRING } },
  // annotations (asserted by nothing, except `format` for the formats the library knows)
  format: STRING,
  title: STRING,
  description: STRING,
  default: true,
  examples: { type: "array" },
  readOnly: { type: "boolean" },
  writeOnly: { type: "boolean" },
  deprecated: { type: "boolean" },
  contentMediaType: STRING,
  contentEncoding: STRING,
};

const META: Schema = {
  $defs: {
    schema: {
      anyOf: [{ type: "boolean" }, { type: "object", propertyNames: { enum: Object.keys(KEYWORDS) }, properties: KEYWORDS }],
    },
  },
  $ref: "#/$defs/schema",
};
const metaValidator = new Validator(META, DRAFT, false);

/** Errors that only say "a part below failed": the part's own error says what. */
const WRAPPERS = new Set(["properties", "patternProperties", "additionalProperties", "items", "prefixItems", "allOf", "$ref", "if", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems", "contains"]);

/**
 * The error that says what is wrong, as `location: message`: the first of
 * the deepest location's errors that is not a wrapper.
 */
function describe(errors: readonly OutputUnit[]): string {
  const depth = (e: OutputUnit) => e.instanceLocation.split("/").length;
  const deepest = Math.max(...errors.map(depth));
  const here = errors.filter((e) => depth(e) === deepest);
  const error = here.find((e) => !WRAPPERS.has(e.keyword)) ?? here[0];
  if (!error) return "invalid";
  return `${error.instanceLocation}: ${error.keyword === "false" ? "is not allowed here" : error.error}`;
}

/** Problems with a schema itself, as `location: message` strings; empty when usable. */
export function checkSchema(schema: unknown): string[] {
  if (typeof schema !== "boolean" && !isRecord(schema)) return ["#: a schema must be an object or a boolean"];
  const shape = metaValidator.validate(schema);
  if (!shape.valid) {
    const unknown = shape.errors.find((e) => e.keywordLocation.endsWith("/propertyNames/enum"));
    if (unknown) return [`${unknown.instanceLocation}: not a JSON Schema keyword`];
    return [describe(shape.errors)];
  }
  if (typeof schema === "boolean") return [];
  try {
    const lookup = dereference(schema as Schema);
    const unresolved = refsOf(schema).filter((ref) => lookup[ref.absolute] === undefined);
    if (unresolved.length > 0) return unresolved.map((ref) => `#: $ref ${JSON.stringify(ref.ref)} does not resolve inside the schema`);
  } catch (error) {
    return [`#: ${error instanceof Error ? error.message : String(error)}`];
  }
  return [];
}

/** Every `$ref` of a dereferenced schema, as written and as the absolute URI the lookup knows it by. */
function refsOf(schema: unknown, out: Array<{ ref: string; absolute: string }> = []): Array<{ ref: string; absolute: string }> {
  if (Array.isArray(schema)) for (const item of schema) refsOf(item, out);
  else if (isRecord(schema)) {
    const { $ref, __absolute_ref__: absolute } = schema as Schema;
    if ($ref !== undefined && absolute !== undefined) out.push({ ref: $ref, absolute });
    for (const value of Object.values(schema)) refsOf(value, out);
  }
  return out;
}

/**
 * Why `value` does not match `schema` (`location: message`, the location a
 * JSON Pointer like `#/tags/0`), or undefined when it does. A schema that
 * cannot be applied (checkSchema would have refused it) refuses every value.
 */
export function validateJson(schema: unknown, value: unknown): string | undefined {
  if (typeof schema !== "boolean" && !isRecord(schema)) return "#: the schema is not a JSON Schema";
  try {
    const result = new Validator(schema as Schema | boolean, DRAFT, false).validate(value);
    return result.valid ? undefined : describe(result.errors);
  } catch (error) {
    return `#: the schema cannot be applied: ${error instanceof Error ? error.message : String(error)}`;
  }
}
