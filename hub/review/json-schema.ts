/**
 * A small JSON Schema subset for `review.responseSchema`: enough for review
 * forms (types, enums, objects, arrays, bounds, combinators) without a
 * runtime dependency or code generation from payload-supplied schemas.
 * checkSchema() refuses the assertion keywords it does not implement, so an
 * author never believes a constraint is enforced when it is not.
 */

/** A JSON Schema object (booleans `true`/`false` are accepted as schemas too). */
export type JsonSchema = { readonly [keyword: string]: unknown };

const TYPES = ["null", "boolean", "object", "array", "number", "integer", "string"] as const;
type TypeName = (typeof TYPES)[number];

/** Keywords that assert nothing: allowed and ignored. */
const ANNOTATIONS = new Set([
  "$schema",
  "$id",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "format",
  "readOnly",
  "writeOnly",
  "deprecated",
  "contentMediaType",
  "contentEncoding",
]);

const NUMBER_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] as const;
const COUNT_KEYWORDS = ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"] as const;
const SCHEMA_LIST_KEYWORDS = ["anyOf", "oneOf", "allOf"] as const;
const SUPPORTED = new Set<string>([
  "type",
  "enum",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "uniqueItems",
  "pattern",
  "not",
  ...NUMBER_KEYWORDS,
  ...COUNT_KEYWORDS,
  ...SCHEMA_LIST_KEYWORDS,
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isTypeName(value: unknown): value is TypeName {
  return typeof value === "string" && (TYPES as readonly string[]).includes(value);
}

/** Problems with a schema itself, as `path: message` strings; empty when usable. */
export function checkSchema(schema: unknown, path = "#"): string[] {
  if (typeof schema === "boolean") return [];
  if (!isObject(schema)) return [`${path}: a schema must be an object or a boolean`];
  const issues: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    const at = `${path}/${keyword}`;
    if (ANNOTATIONS.has(keyword)) continue;
    if (!SUPPORTED.has(keyword)) {
      issues.push(`${at}: keyword "${keyword}" is not supported`);
      continue;
    }
    issues.push(...checkKeyword(keyword, value, at));
  }
  return issues;
}

function checkKeyword(keyword: string, value: unknown, at: string): string[] {
  switch (keyword) {
    case "type": {
      const names = Array.isArray(value) ? value : [value];
      return names.length > 0 && names.every(isTypeName) ? [] : [`${at}: must be a type name or a list of them`];
    }
    case "enum":
      return Array.isArray(value) ? [] : [`${at}: must be an array`];
    case "const":
      return [];
    case "properties":
      if (!isObject(value)) return [`${at}: must be an object of schemas`];
      return Object.entries(value).flatMap(([name, sub]) => checkSchema(sub, `${at}/${name}`));
    case "required":
      return Array.isArray(value) && value.every((v) => typeof v === "string") ? [] : [`${at}: must be an array of strings`];
    case "additionalProperties":
    case "items":
    case "not":
      return checkSchema(value, at);
    case "uniqueItems":
      return typeof value === "boolean" ? [] : [`${at}: must be a boolean`];
    case "pattern":
      if (typeof value !== "string") return [`${at}: must be a string`];
      try {
        new RegExp(value, "u");
        return [];
      } catch (error) {
        return [`${at}: ${error instanceof Error ? error.message : String(error)}`];
      }
    default:
      if ((NUMBER_KEYWORDS as readonly string[]).includes(keyword)) {
        const positive = keyword === "multipleOf";
        return typeof value === "number" && Number.isFinite(value) && (!positive || value > 0) ? [] : [`${at}: must be a ${positive ? "positive " : ""}number`];
      }
      if ((COUNT_KEYWORDS as readonly string[]).includes(keyword)) {
        return Number.isSafeInteger(value) && (value as number) >= 0 ? [] : [`${at}: must be a non-negative integer`];
      }
      // anyOf / oneOf / allOf
      if (!Array.isArray(value) || value.length === 0) return [`${at}: must be a non-empty array of schemas`];
      return value.flatMap((sub, i) => checkSchema(sub, `${at}/${i}`));
  }
}

function typeOf(value: unknown): TypeName | "unsupported" {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "boolean":
      return "boolean";
    case "string":
      return "string";
    case "number":
      return Number.isFinite(value) ? (Number.isInteger(value) ? "integer" : "number") : "unsupported";
    case "object":
      return "object";
    default:
      return "unsupported";
  }
}

/** Structural equality of JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function pathOf(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

/**
 * The first way `value` fails `schema`, as "path: message" (path `$` is the
 * value itself), or undefined when it is valid. Assumes checkSchema passed.
 */
export function validateJson(schema: unknown, value: unknown, path = "$"): string | undefined {
  if (schema === true) return undefined;
  if (schema === false || !isObject(schema)) return `${path}: no value is allowed here`;
  const s = schema;
  const kind = typeOf(value);

  if (s["type"] !== undefined) {
    const allowed = (Array.isArray(s["type"]) ? s["type"] : [s["type"]]).filter(isTypeName);
    const matches = allowed.some((t) => t === kind || (t === "number" && kind === "integer"));
    if (!matches) return `${path}: must be ${allowed.join(" or ")}, got ${kind}`;
  }
  if (Array.isArray(s["enum"]) && !s["enum"].some((option) => jsonEqual(option, value))) {
    return `${path}: must be one of ${JSON.stringify(s["enum"])}`;
  }
  if (Object.hasOwn(s, "const") && !jsonEqual(s["const"], value)) return `${path}: must be ${JSON.stringify(s["const"])}`;

  const specific =
    typeof value === "number"
      ? numberError(s, value, path)
      : typeof value === "string"
        ? stringError(s, value, path)
        : Array.isArray(value)
          ? arrayError(s, value, path)
          : isObject(value)
            ? objectError(s, value, path)
            : undefined;
  if (specific !== undefined) return specific;
  return combinatorError(s, value, path);
}

function numberError(s: JsonSchema, value: number, path: string): string | undefined {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = s;
  if (typeof minimum === "number" && value < minimum) return `${path}: must be >= ${minimum}`;
  if (typeof maximum === "number" && value > maximum) return `${path}: must be <= ${maximum}`;
  if (typeof exclusiveMinimum === "number" && value <= exclusiveMinimum) return `${path}: must be > ${exclusiveMinimum}`;
  if (typeof exclusiveMaximum === "number" && value >= exclusiveMaximum) return `${path}: must be < ${exclusiveMaximum}`;
  if (typeof multipleOf === "number" && !Number.isInteger(value / multipleOf)) return `${path}: must be a multiple of ${multipleOf}`;
  return undefined;
}

function stringError(s: JsonSchema, value: string, path: string): string | undefined {
  // Lengths count code points, as JSON Schema does.
  const length = [...value].length;
  if (typeof s["minLength"] === "number" && length < s["minLength"]) return `${path}: must have at least ${s["minLength"]} characters`;
  if (typeof s["maxLength"] === "number" && length > s["maxLength"]) return `${path}: must have at most ${s["maxLength"]} characters`;
  if (typeof s["pattern"] === "string" && !new RegExp(s["pattern"], "u").test(value)) return `${path}: must match /${s["pattern"]}/`;
  return undefined;
}

function arrayError(s: JsonSchema, value: readonly unknown[], path: string): string | undefined {
  if (typeof s["minItems"] === "number" && value.length < s["minItems"]) return `${path}: must have at least ${s["minItems"]} items`;
  if (typeof s["maxItems"] === "number" && value.length > s["maxItems"]) return `${path}: must have at most ${s["maxItems"]} items`;
  if (s["uniqueItems"] === true) {
    const dup = value.findIndex((x, i) => value.slice(0, i).some((y) => jsonEqual(x, y)));
    if (dup >= 0) return `${pathOf(path, dup)}: duplicates an earlier item`;
  }
  if (s["items"] !== undefined) {
    for (const [i, item] of value.entries()) {
      const error = validateJson(s["items"], item, pathOf(path, i));
      if (error !== undefined) return error;
    }
  }
  return undefined;
}

function objectError(s: JsonSchema, value: Record<string, unknown>, path: string): string | undefined {
  const count = Object.keys(value).length;
  if (typeof s["minProperties"] === "number" && count < s["minProperties"]) return `${path}: must have at least ${s["minProperties"]} properties`;
  if (typeof s["maxProperties"] === "number" && count > s["maxProperties"]) return `${path}: must have at most ${s["maxProperties"]} properties`;
  if (Array.isArray(s["required"])) {
    for (const name of s["required"]) {
      if (typeof name === "string" && !Object.hasOwn(value, name)) return `${pathOf(path, name)}: is required`;
    }
  }
  const properties = isObject(s["properties"]) ? s["properties"] : {};
  for (const [name, item] of Object.entries(value)) {
    const sub = Object.hasOwn(properties, name) ? properties[name] : s["additionalProperties"];
    if (sub === undefined) continue;
    if (sub === false) return `${pathOf(path, name)}: is not allowed`;
    const error = validateJson(sub, item, pathOf(path, name));
    if (error !== undefined) return error;
  }
  return undefined;
}

function combinatorError(s: JsonSchema, value: unknown, path: string): string | undefined {
  if (Array.isArray(s["allOf"])) {
    for (const sub of s["allOf"]) {
      const error = validateJson(sub, value, path);
      if (error !== undefined) return error;
    }
  }
  if (Array.isArray(s["anyOf"])) {
    const errors = s["anyOf"].map((sub) => validateJson(sub, value, path));
    if (errors.every((e) => e !== undefined)) return `${path}: matches none of the allowed shapes (${errors.join("; ")})`;
  }
  if (Array.isArray(s["oneOf"])) {
    const matching = s["oneOf"].filter((sub) => validateJson(sub, value, path) === undefined).length;
    if (matching !== 1) return `${path}: must match exactly one allowed shape, matches ${matching}`;
  }
  if (s["not"] !== undefined && validateJson(s["not"], value, path) === undefined) return `${path}: matches a forbidden shape`;
  return undefined;
}
