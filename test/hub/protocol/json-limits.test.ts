/** Depth and byte measures of inbound JSON (hub/protocol/json-limits.ts). */
import { describe, expect, it } from "vitest";
import { decodeCommand, jsonDepthExceeds, utf8Bytes } from "../../../hub/protocol/index.ts";

describe("jsonDepthExceeds", () => {
  it.each([
    ["1", 0, false],
    ["[]", 1, false],
    ["[]", 0, true],
    ['{"a":[{"b":[]}]}', 4, false],
    ['{"a":[{"b":[]}]}', 3, true],
    ['"[[[[[[[[[["', 2, false],
    ['["\\"[[[[[["]', 1, false],
    ['["\\\\",[[[1]]]]', 3, true],
    ["[[],[],[],[]]", 2, false],
  ] as const)("%s with max %d: %s", (text, max, expected) => {
    expect(jsonDepthExceeds(text, max)).toBe(expected);
  });

  it("scans 5,000 levels without recursion, and decodeCommand refuses them before parsing", () => {
    const text = `{"id":1,"method":"run.start","params":{"assistant_id":"a","input":${"[".repeat(5000)}${"]".repeat(5000)}}}`;
    expect(jsonDepthExceeds(text, 64)).toBe(true);
    expect(decodeCommand(text, 64)).toMatchObject({ ok: false, error: { kind: "too_deep", code: "invalid_argument", id: null } });
    expect(decodeCommand(text, 10_000)).toMatchObject({ ok: true });
  });
});

describe("utf8Bytes", () => {
  it.each([
    ["", 0],
    ["abc", 3],
    ["naïve", 6],
    ["日本", 6],
    ["😀", 4],
  ] as const)("%s is %d bytes", (text, bytes) => {
    expect(utf8Bytes(text)).toBe(bytes);
    expect(utf8Bytes(text)).toBe(Buffer.byteLength(text));
  });
});
