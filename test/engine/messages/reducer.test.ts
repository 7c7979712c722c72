/** addMessages: append, replace by id, remove, remove-all, shorthands, id assignment, bad input. */
import { describe, expect, it } from "vitest";
import {
  addMessages,
  aiMessage,
  aiMessageChunk,
  humanMessage,
  InvalidMessageError,
  REMOVE_ALL_MESSAGES,
  removeMessage,
  RemoveMessageError,
  systemMessage,
  toolMessage,
} from "../../../engine/messages/index.ts";
import type { Message, MessagesUpdate } from "../../../engine/messages/index.ts";

const h = (id: string, content = id): Message => humanMessage(content, { id });
const a = (id: string, content = id): Message => aiMessage(content, { id });
const summary = (messages: Message[]): string[] => messages.map((m) => `${m.type}:${m.id}:${JSON.stringify(m.content)}`);

describe("addMessages merges by id", () => {
  const cases: Array<[label: string, left: Message[], right: MessagesUpdate, expected: string[]]> = [
    ["append one message", [h("1")], a("2"), ["human:1:\"1\"", "ai:2:\"2\""]],
    ["append an array", [h("1")], [a("2"), h("3")], ["human:1:\"1\"", "ai:2:\"2\"", "human:3:\"3\""]],
    ["empty right changes nothing", [h("1")], [], ["human:1:\"1\""]],
    ["empty left", [], [h("1")], ["human:1:\"1\""]],
    ["replace in place", [h("1"), a("2"), h("3")], a("2", "new"), ["human:1:\"1\"", "ai:2:\"new\"", "human:3:\"3\""]],
    ["replace with falsy content", [h("1", "x")], h("1", ""), ["human:1:\"\""]],
    ["replace can change the type", [h("1")], a("1", "now ai"), ["ai:1:\"now ai\""]],
    ["the later of two updates with one id wins", [], [h("1", "a"), h("1", "b")], ["human:1:\"b\""]],
    ["remove by id", [h("1"), a("2"), h("3")], removeMessage("2"), ["human:1:\"1\"", "human:3:\"3\""]],
    ["remove the only message", [h("1")], [removeMessage("1")], []],
    ["add then remove in one update", [h("1")], [a("2"), removeMessage("2")], ["human:1:\"1\""]],
    // As in LangGraph, a message removed and written again keeps its place.
    ["remove then re-add keeps position", [h("1"), h("2")], [removeMessage("1"), h("1", "back")], ["human:1:\"back\"", "human:2:\"2\""]],
    ["remove all", [h("1"), a("2")], [removeMessage(REMOVE_ALL_MESSAGES)], []],
    ["remove all then add", [h("1"), a("2")], [removeMessage(REMOVE_ALL_MESSAGES), h("3")], ["human:3:\"3\""]],
    ["remove all drops earlier entries of the same update", [h("1")], [h("2"), removeMessage(REMOVE_ALL_MESSAGES), h("3")], ["human:3:\"3\""]],
    ["only the last remove-all counts", [h("1")], [removeMessage(REMOVE_ALL_MESSAGES), h("2"), removeMessage(REMOVE_ALL_MESSAGES)], []],
    ["a remove before remove-all is moot", [h("1")], [removeMessage("gone"), removeMessage(REMOVE_ALL_MESSAGES)], []],
    ["a [role, content] tuple", [], ["human", "hi"] as const, ["human:?:\"hi\""]],
    ["an array of tuples", [], [["user", "q"] as const, ["assistant", ""] as const], ["human:?:\"q\"", "ai:?:\"\""]],
    ["a role object", [], { role: "system", content: "be brief", id: "s" }, ["system:s:\"be brief\""]],
    ["a chunk becomes an AI message", [], aiMessageChunk("par", { id: "c", tool_call_chunks: [{ index: 0, id: "t", name: "f", args: "{}" }] }), ["ai:c:\"par\""]],
  ];
  it.each(cases)("%s", (_label, left, right, expected) => {
    const before = JSON.stringify(left);
    const result = addMessages(left, right).map((m) => (expected.some((e) => e.includes(":?:")) ? { ...m, id: "?" } : m));
    expect(summary(result)).toEqual(expected);
    expect(JSON.stringify(left)).toBe(before); // inputs are never mutated
  });
});

describe("addMessages assigns ids", () => {
  it.each([
    ["missing", humanMessage("x")],
    ["empty string", humanMessage("x", { id: "" })],
    ["null (from JSON of other languages)", { type: "human", content: "x", id: null } as unknown as Message],
  ])("when the id is %s", (_label, message) => {
    const [stored] = addMessages([], message);
    expect(stored?.id).toMatch(/^[A-Za-z0-9_-]{21}$/);
  });

  it("keeps given ids and gives each new message its own", () => {
    const result = addMessages([], [humanMessage("a"), humanMessage("b"), humanMessage("c", { id: "keep" })]);
    const ids = result.map((m) => m.id);
    expect(new Set(ids).size).toBe(3);
    expect(ids[2]).toBe("keep");
  });

  it("assigns ids to a left value that has none, and its removes apply", () => {
    const result = addMessages([humanMessage("a"), h("x")], [removeMessage("x")]);
    expect(result).toHaveLength(1);
    expect(result[0]?.id).toBeTruthy();
  });

  it("accepts an undefined left", () => {
    expect(summary(addMessages(undefined, h("1")))).toEqual(["human:1:\"1\""]);
  });

  it("normalizes an AI message written as plain JSON without tool_calls", () => {
    const [m] = addMessages([], { type: "ai", content: "x", id: "a" } as unknown as Message);
    expect(m).toEqual({ type: "ai", content: "x", id: "a", tool_calls: [] });
  });

  it("keeps tool messages' fields", () => {
    const [m] = addMessages([], toolMessage("0", { tool_call_id: "c1", id: "t", status: "error" }));
    expect(m).toEqual({ type: "tool", content: "0", tool_call_id: "c1", id: "t", status: "error" });
  });
});

describe("addMessages rejects", () => {
  it("a remove of an unknown id with RemoveMessageError naming the id", () => {
    const attempt = () => addMessages([h("1")], removeMessage("nope"));
    expect(attempt).toThrow(RemoveMessageError);
    expect(attempt).toThrow(/"nope"/);
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ name: "RemoveMessageError", code: "REMOVE_UNKNOWN_ID", id: "nope" });
    }
  });

  it("a remove of an id that an earlier remove in the same update targets twice is fine", () => {
    expect(addMessages([h("1"), h("2")], [removeMessage("1"), removeMessage("1")]).map((m) => m.id)).toEqual(["2"]);
  });

  it.each<[string, unknown, RegExp]>([
    ["null", null, /at \[0\]: expected a message, got null/],
    ["0", 0, /got number/],
    ["a string", "hi", /got string/],
    ["false", false, /got boolean/],
    ["an unknown role", { role: "critic", content: "x" }, /\[0\]\.role: unknown role "critic"/],
    ["a tuple of the wrong length", [["human"]], /a message tuple is \[role, content\]/],
    ["a tool tuple without a call id", ["tool", "r"], /\[0\]\.tool_call_id: expected a string/],
    ["an unknown type", { type: "chat", content: "x" }, /\[0\]\.type: unknown message type "chat"/],
    ["a bad tool call", { type: "ai", content: "", tool_calls: [{ id: "c", name: "f", args: 1 }] }, /\[0\]\.tool_calls\[0\]\.args: expected an object/],
  ])("%s with InvalidMessageError and a path", (_label, value, message) => {
    const attempt = () => addMessages([], value as MessagesUpdate);
    expect(attempt).toThrow(InvalidMessageError);
    expect(attempt).toThrow(message);
  });

  it("bad entries of a left value, with a left path", () => {
    expect(() => addMessages([{ type: "nope" }] as unknown as Message[], [])).toThrow(/left\[0\]\.type/);
  });
});

describe("addMessages on a longer history", () => {
  it("replaces and removes without disturbing order", () => {
    let state: Message[] = [];
    state = addMessages(state, [systemMessage("s", { id: "s" }), h("1"), a("2")]);
    state = addMessages(state, [h("3"), a("4")]);
    state = addMessages(state, [removeMessage("1"), a("2", "edited")]);
    expect(summary(state)).toEqual(["system:s:\"s\"", "ai:2:\"edited\"", "human:3:\"3\"", "ai:4:\"4\""]);
  });
});
