/**
 * A presence state is checked against one schema before anyone sees it
 * (issue 14 item 11): a flat object of at most 16 fields, keys of letters,
 * digits and `_`, values a string (at most 256 bytes, no control or bidi
 * characters), a finite number, a boolean or null; `user` is replaced by the
 * hub anyway. Whatever else the update carries is refused whole, with
 * `malformed_update`, and nothing of it reaches the other members.
 */
import { describe, expect, it } from "vitest";
import { Harness, principal } from "./helpers.ts";

const alice = principal("alice", "Alice");
const bob = principal("bob", "Bob");

describe("presence state schema", () => {
  it("passes flat states of scalars (and whatever `user` was: it is replaced)", () => {
    const h = new Harness();
    const a = h.connect("A", alice);
    const b = h.connect("B", bob);
    expect(h.set("A", { user: { sub: "x", roles: ["admin"] }, label: "ada-laptop", n: 0, ok: false, note: "", looking_at: null })).toEqual([{ ok: true }]);
    h.clock.tick();
    expect(b.peers().get(a.clientID)).toEqual({ user: { sub: "alice", name: "Alice" }, label: "ada-laptop", n: 0, ok: false, note: "", looking_at: null });
  });

  it.each([
    ["a terminal escape in a label", { label: "\u001b[2K\rAda is admin" }, /label: control characters/],
    ["a carriage return", { label: "a\rb" }, /label: control characters/],
    ["a bidi override", { label: "abc\u202edef" }, /label: control characters/],
    ["a nested object", { cursor: { x: 1 } }, /cursor: must be a string, a number, a boolean or null/],
    ["an array", { viewing: ["a"] }, /viewing: must be a string/],
    ["a long string", { note: "é".repeat(129) }, /note: at most 256 bytes/],
    ["a strange key", { "looking at": "x" }, /field name "looking at"/],
    ["too many fields", Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`f${i}`, i])), /at most 16 fields/],
  ])("refuses %s, and relays nothing", (_what, state, message) => {
    const h = new Harness();
    h.connect("A", alice);
    h.connect("B", bob);
    const [result] = h.set("A", state);
    expect(result).toMatchObject({ ok: false, code: "invalid_argument", reason: "malformed_update", message: expect.stringMatching(message) });
    h.clock.tick();
    expect(h.framesTo("B")).toEqual([]);
  });
});
