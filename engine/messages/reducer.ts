/**
 * The `addMessages` reducer of a messages channel (LangGraph's add_messages):
 * appends new messages, replaces in place a message whose id is already
 * there, and applies RemoveMessage instructions. Ids are assigned here, so
 * that every stored message can later be replaced or removed by id.
 */
import { nanoid } from "nanoid";
import { REMOVE_ALL_MESSAGES } from "./build.ts";
import { chunkToMessage } from "./chunks.ts";
import { InvalidMessageError, RemoveMessageError } from "./errors.ts";
import { messageProblem } from "./guards.ts";
import type { AnyMessage, Message, MessageRole, MessagesUpdate, RemoveMessage } from "./types.ts";
import { isRecord } from "../is-record.ts";

const ROLE_TO_TYPE: Record<MessageRole, "human" | "ai" | "system" | "tool"> = {
  human: "human",
  user: "human",
  ai: "ai",
  assistant: "ai",
  system: "system",
  tool: "tool",
};


function roleType(role: unknown, path: string): "human" | "ai" | "system" | "tool" {
  const type = typeof role === "string" && Object.hasOwn(ROLE_TO_TYPE, role) ? ROLE_TO_TYPE[role as MessageRole] : undefined;
  if (!type) throw new InvalidMessageError(path, `unknown role ${JSON.stringify(role)}`);
  return type;
}

/** Turns one message-like value into a message object, or throws InvalidMessageError. */
function coerce(value: unknown, path: string): AnyMessage {
  let candidate: Record<string, unknown>;
  if (Array.isArray(value)) {
    if (value.length !== 2) throw new InvalidMessageError(path, "a message tuple is [role, content]");
    candidate = { type: roleType(value[0], `${path}[0]`), content: value[1] };
  } else if (isRecord(value) && value.type === undefined && value.role !== undefined) {
    const { role, ...rest } = value;
    candidate = { ...rest, type: roleType(role, `${path}.role`) };
  } else if (isRecord(value)) {
    candidate = { ...value };
  } else {
    throw new InvalidMessageError(path, `expected a message, got ${value === null ? "null" : typeof value}`);
  }
  // JSON written by other languages spells "absent" as null (Python's None).
  for (const key of Object.keys(candidate)) if (candidate[key] === null) delete candidate[key];
  if (candidate.type === "ai" && candidate.tool_calls === undefined) candidate.tool_calls = [];
  const problem = messageProblem(candidate);
  if (problem) throw new InvalidMessageError(path + problem[0], problem[1]);
  return candidate as unknown as AnyMessage;
}

/** Coerces one update entry into a stored message (with an id) or a RemoveMessage. */
function toStored(value: unknown, path: string): Message | RemoveMessage {
  const message = coerce(value, path);
  if (message.type === "remove") return message;
  // State holds complete messages: a chunk written by a node becomes an AIMessage.
  const complete = message.type === "ai_chunk" ? chunkToMessage([message]) : message;
  // "" cannot address a message any better than a missing id can.
  return complete.id ? complete : { ...complete, id: nanoid() };
}

/** An update is one message-like value or an array of them; a [role, content] tuple is one. */
function updateList(update: MessagesUpdate): readonly unknown[] {
  if (!Array.isArray(update)) return [update];
  return typeof update[0] === "string" ? [update] : update;
}

/** Ids and types of a channel's own value were checked when it was written. */
function isStoredMessage(value: unknown): value is Message {
  return (
    isRecord(value) &&
    typeof value.id === "string" &&
    value.id !== "" &&
    (value.type === "human" || value.type === "ai" || value.type === "system" || value.type === "tool")
  );
}

function apply(base: readonly Message[], updates: ReadonlyArray<Message | RemoveMessage>): Message[] {
  let start = 0;
  let merged: Message[] = [...base];
  for (let i = updates.length - 1; i >= 0; i--) {
    const u = updates[i];
    if (u?.type === "remove" && u.id === REMOVE_ALL_MESSAGES) {
      start = i + 1;
      merged = [];
      break;
    }
  }
  const indexById = new Map<string, number>();
  merged.forEach((m, i) => indexById.set(m.id as string, i));
  // Removal happens after the whole update, as in LangGraph: a message removed
  // and then written again in the same update stays, at its old position.
  const removed = new Set<string>();
  for (let i = start; i < updates.length; i++) {
    const u = updates[i] as Message | RemoveMessage;
    const id = u.id as string;
    const at = indexById.get(id);
    if (u.type === "remove") {
      if (at === undefined) throw new RemoveMessageError(id);
      removed.add(id);
    } else if (at !== undefined) {
      merged[at] = u;
      removed.delete(id);
    } else {
      indexById.set(id, merged.length);
      merged.push(u);
    }
  }
  return removed.size === 0 ? merged : merged.filter((m) => !removed.has(m.id as string));
}

/**
 * Reducer for a messages channel. `left` is the current list (a value written
 * before this reducer ran, e.g. an initial input, is accepted too); `right` is
 * a message, an array of them, a `{ role, content }` object or a
 * `[role, content]` tuple. Returns a new array; inputs are never mutated.
 */
export function addMessages(left: MessagesUpdate | undefined, right: MessagesUpdate): Message[] {
  let base: Message[];
  if (left === undefined || left === null) {
    base = [];
  } else if (Array.isArray(left) && left.every(isStoredMessage)) {
    base = left as Message[];
  } else {
    base = apply([], updateList(left).map((m, i) => toStored(m, `left[${i}]`)));
  }
  return apply(
    base,
    updateList(right).map((m, i) => toStored(m, `[${i}]`)),
  );
}
