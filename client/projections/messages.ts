/**
 * Messages projection: assembles `messages` events (the content-block
 * lifecycle) into messages, one per (namespace, node, message id), with text,
 * reasoning and tool calls (arguments parsed as they stream). Pure: a
 * function of (messages, event) that returns new objects for what changed.
 */
import { KNOWN_DELTA_TYPES, isRecord, type ContentBlockDelta, type EventOf, type MessageMetadata, type Namespace, type UsageInfo } from "../../hub/protocol/index.ts";

export type BlockView =
  | { kind: "text"; index: number; done: boolean; text: string }
  | { kind: "reasoning"; index: number; done: boolean; reasoning: string }
  | {
      kind: "tool_call";
      index: number;
      done: boolean;
      id: string | null;
      name: string | null;
      /** The argument text received so far. */
      argsText: string;
      /** Parsed arguments: final after finish; while streaming, the last prefix that parsed. */
      args: Record<string, unknown> | undefined;
      /** Set when the call finished as `invalid_tool_call`. */
      error?: string;
    }
  | { kind: "other"; index: number; done: boolean; content: Record<string, unknown> };

export interface ToolCallView {
  id: string | null;
  name: string | null;
  args: Record<string, unknown> | undefined;
  argsText: string;
  done: boolean;
  error?: string;
}

export type MessageStatus = "streaming" | "finished" | "error";

export interface MessageView {
  /** Unique within a thread: namespace, node and message id. */
  key: string;
  id: string;
  namespace: Namespace;
  node: string | undefined;
  role: string;
  /** The message's own name (a tool message: the tool's), when it has one. */
  name?: string;
  status: MessageStatus;
  blocks: readonly BlockView[];
  /** Text blocks joined. */
  text: string;
  reasoning: string;
  toolCalls: readonly ToolCallView[];
  metadata?: MessageMetadata;
  finishReason?: string;
  usage?: UsageInfo;
  error?: { message: string; code?: string };
  /** The run (of the hub) that produced it, from the event envelope. */
  run_id?: string;
}

type MessagesEvent = EventOf<"messages">;

export const namespaceKey = (ns: readonly string[]): string => ns.join("\u0000");

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/**
 * JSON.parse of an object, or undefined (a partial argument string does not
 * parse). Not the engine's parseToolArgs on purpose: this one reads args
 * *while they stream* for display (the view keeps the last parse that
 * worked), the finished call's args arrive parsed on the wire
 * (content-block-finish), and the SDK knows only the wire, never engine code.
 */
export function parseArgs(text: string): Record<string, unknown> | undefined {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A block view from a (start, block-delta or finish) content record. */
export function blockOf(index: number, content: Record<string, unknown>, done: boolean, previous?: BlockView): BlockView {
  switch (content["type"]) {
    case "text":
      return { kind: "text", index, done, text: str(content["text"]) ?? "" };
    case "reasoning":
      return { kind: "reasoning", index, done, reasoning: str(content["reasoning"]) ?? "" };
    case "tool_call_chunk": {
      const argsText = str(content["args"]) ?? "";
      const prev = previous?.kind === "tool_call" ? previous.args : undefined;
      // Nothing to parse yet is "no args yet", not `{}`.
      const args = argsText.trim() === "" ? prev : (parseArgs(argsText) ?? prev);
      return { kind: "tool_call", index, done, id: str(content["id"]) ?? null, name: str(content["name"]) ?? null, argsText, args };
    }
    case "tool_call": {
      const args = isRecord(content["args"]) ? content["args"] : {};
      return { kind: "tool_call", index, done, id: str(content["id"]) ?? null, name: str(content["name"]) ?? null, argsText: JSON.stringify(args), args };
    }
    case "invalid_tool_call":
      return {
        kind: "tool_call",
        index,
        done,
        id: str(content["id"]) ?? null,
        name: str(content["name"]) ?? null,
        argsText: str(content["args"]) ?? "",
        args: undefined,
        error: str(content["error"]) ?? "invalid tool call",
      };
    default:
      return { kind: "other", index, done, content };
  }
}

/** Applies one delta; unknown delta types are ignored, as the spec requires. */
export function applyDelta(block: BlockView, delta: ContentBlockDelta): BlockView {
  const d: Record<string, unknown> = { ...delta };
  switch (d["type"]) {
    case "text-delta":
      return block.kind === "text" ? { ...block, text: block.text + (str(d["text"]) ?? "") } : block;
    case "reasoning-delta":
      return block.kind === "reasoning" ? { ...block, reasoning: block.reasoning + (str(d["reasoning"]) ?? "") } : block;
    case "tool-call-delta": {
      if (block.kind !== "tool_call") return block;
      const argsText = block.argsText + (str(d["args"]) ?? "");
      return { ...block, argsText, args: parseArgs(argsText) ?? block.args };
    }
    case "block-delta": {
      const fields = isRecord(d["fields"]) ? d["fields"] : {};
      return blockOf(block.index, { ...contentOf(block), ...fields }, block.done, block);
    }
    case "data-delta": {
      if (block.kind !== "other") return block;
      const base64 = (str(block.content["base64"]) ?? "") + (str(d["data"]) ?? "");
      return { ...block, content: { ...block.content, base64 } };
    }
    default:
      return block;
  }
}

/** The content record a block view stands for (what a block-delta merges onto). */
function contentOf(block: BlockView): Record<string, unknown> {
  switch (block.kind) {
    case "text":
      return { type: "text", text: block.text };
    case "reasoning":
      return { type: "reasoning", reasoning: block.reasoning };
    case "tool_call":
      return { type: "tool_call_chunk", id: block.id, name: block.name, args: block.argsText };
    case "other":
      return block.content;
  }
}

function withDerived(message: MessageView, blocks: readonly BlockView[]): MessageView {
  const sorted = [...blocks].sort((a, b) => a.index - b.index);
  let text = "";
  let reasoning = "";
  const toolCalls: ToolCallView[] = [];
  for (const b of sorted) {
    if (b.kind === "text") text += b.text;
    else if (b.kind === "reasoning") reasoning += b.reasoning;
    else if (b.kind === "tool_call") {
      toolCalls.push({ id: b.id, name: b.name, args: b.args, argsText: b.argsText, done: b.done, ...(b.error === undefined ? {} : { error: b.error }) });
    }
  }
  return { ...message, blocks: sorted, text, reasoning, toolCalls };
}

function messageIdOf(event: MessagesEvent): string | undefined {
  const data: Record<string, unknown> = { ...event.params.data };
  return str(data["run_id"]) ?? (data["event"] === "message-start" ? str(data["id"]) : undefined);
}

function keyOf(event: MessagesEvent, id: string): string {
  return `${namespaceKey(event.params.namespace)}|${event.params.node ?? ""}|${id}`;
}

/** The message an event belongs to: by id, else (spec producers) the open one of its namespace and node. */
function findIndex(messages: readonly MessageView[], event: MessagesEvent): number {
  const id = messageIdOf(event);
  if (id !== undefined) {
    const key = keyOf(event, id);
    for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.key === key) return i;
    return -1;
  }
  const ns = namespaceKey(event.params.namespace);
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m && m.status === "streaming" && namespaceKey(m.namespace) === ns && m.node === event.params.node) return i;
  }
  return -1;
}

function newMessage(event: MessagesEvent, id: string, role: string, metadata: MessageMetadata | undefined): MessageView {
  return {
    key: keyOf(event, id),
    id,
    namespace: event.params.namespace,
    node: event.params.node,
    role,
    status: "streaming",
    blocks: [],
    text: "",
    reasoning: "",
    toolCalls: [],
    ...(metadata === undefined ? {} : { metadata }),
    ...(event.run_id === undefined ? {} : { run_id: event.run_id }),
  };
}

function replaceAt(messages: readonly MessageView[], index: number, message: MessageView): MessageView[] {
  const next = [...messages];
  next[index] = message;
  return next;
}

function updateBlock(blocks: readonly BlockView[], index: number, update: (block: BlockView | undefined) => BlockView | undefined): BlockView[] {
  const at = blocks.findIndex((b) => b.index === index);
  const updated = update(at === -1 ? undefined : blocks[at]);
  if (updated === undefined) return [...blocks];
  if (at === -1) return [...blocks, updated];
  const next = [...blocks];
  next[at] = updated;
  return next;
}

/** Applies one `messages` event to the list of messages. */
export function reduceMessages(messages: readonly MessageView[], event: MessagesEvent): readonly MessageView[] {
  const data = event.params.data;
  if (data.event === "message-start") {
    const id = messageIdOf(event) ?? data.id;
    const index = findIndex(messages, event);
    const fresh = newMessage(event, id, data.role, data.metadata);
    return index === -1 ? [...messages, fresh] : replaceAt(messages, index, fresh);
  }
  let index = findIndex(messages, event);
  let list = messages;
  if (index === -1) {
    // Joined mid-message (e.g. after a resync): start it implicitly.
    list = [...messages, newMessage(event, messageIdOf(event) ?? `${event.params.node ?? "message"}-${messages.length}`, "ai", undefined)];
    index = list.length - 1;
  }
  const message = list[index];
  if (!message) return messages;
  switch (data.event) {
    case "content-block-start":
      return replaceAt(list, index, withDerived(message, updateBlock(message.blocks, data.index, () => blockOf(data.index, { ...data.content }, false))));
    case "content-block-delta":
      // A delta type from a newer hub: ignored, and the stream goes on (spec).
      if (!KNOWN_DELTA_TYPES.has(data.delta.type)) return messages;
      return replaceAt(list, index, withDerived(message, updateBlock(message.blocks, data.index, (b) => applyDelta(b ?? blockOf(data.index, { type: deltaKind(data.delta) }, false), data.delta))));
    case "content-block-finish":
      return replaceAt(list, index, withDerived(message, updateBlock(message.blocks, data.index, (b) => blockOf(data.index, { ...data.content }, true, b))));
    case "message-finish": {
      const extra: Record<string, unknown> = { ...data };
      const reason = str(extra["reason"]);
      return replaceAt(list, index, {
        ...message,
        status: "finished",
        ...(reason === undefined ? {} : { finishReason: reason }),
        ...(data.usage === undefined ? {} : { usage: data.usage }),
      });
    }
    case "error":
      return replaceAt(list, index, { ...message, status: "error", error: { message: data.message, ...(data.code === undefined ? {} : { code: data.code }) } });
    default:
      return messages;
  }
}

/** The block kind a delta implies, for a delta whose block start was missed. */
function deltaKind(delta: ContentBlockDelta): string {
  switch (delta.type) {
    case "text-delta":
      return "text";
    case "reasoning-delta":
      return "reasoning";
    case "tool-call-delta":
      return "tool_call_chunk";
    default:
      return "non_standard";
  }
}

const ROLES: Readonly<Record<string, string>> = { human: "human", user: "human", ai: "ai", assistant: "ai", system: "system", tool: "tool" };

/**
 * The messages of a thread's state (`values.messages`, the engine's message
 * shape, or LangChain's `{ role, content }`) as finished message views in
 * state order: what a page shows for messages it did not see stream — a
 * thread opened after its run, or after the hub restarted, whose replay has
 * only the state. Anything that is not a message is skipped.
 */
export function messagesFromValues(values: Record<string, unknown> | null): MessageView[] {
  const list = values?.["messages"];
  if (!Array.isArray(list)) return [];
  return list.flatMap((raw, i): MessageView[] => {
    if (!isRecord(raw)) return [];
    const role = ROLES[str(raw["type"]) ?? str(raw["role"]) ?? ""];
    if (role === undefined) return [];
    const id = str(raw["id"]) ?? `state-${i}`;
    const blocks: BlockView[] = [];
    const reasoning = str(raw["reasoning"]);
    if (reasoning) blocks.push({ kind: "reasoning", index: blocks.length, done: true, reasoning });
    const content = raw["content"];
    if (typeof content === "string") {
      if (content !== "") blocks.push({ kind: "text", index: blocks.length, done: true, text: content });
    } else if (Array.isArray(content)) {
      for (const part of content) if (isRecord(part)) blocks.push(blockOf(blocks.length, part, true));
    }
    const calls = Array.isArray(raw["tool_calls"]) ? raw["tool_calls"] : [];
    for (const call of calls) if (isRecord(call)) blocks.push(blockOf(blocks.length, { ...call, type: "tool_call" }, true));
    const usage = isRecord(raw["usage"]) ? (raw["usage"] as UsageInfo) : undefined;
    const name = str(raw["name"]);
    const view: MessageView = {
      key: `state|${id}`,
      id,
      namespace: [],
      node: undefined,
      role,
      status: "finished",
      blocks: [],
      text: "",
      reasoning: "",
      toolCalls: [],
      ...(name === undefined ? {} : { name }),
      ...(usage === undefined ? {} : { usage }),
    };
    return [withDerived(view, blocks)];
  });
}

/**
 * The conversation a run view shows: the state's messages in state order
 * (`messagesFromValues`, derived once per state, not per token), each one
 * that streamed here in its streamed form (same id), then the streamed ones
 * the state does not hold yet (still streaming, or a subgraph's). With no
 * messages in the state it is the streamed list as is.
 */
export function conversationOf(streamed: readonly MessageView[], fromState: readonly MessageView[]): readonly MessageView[] {
  if (fromState.length === 0) return streamed;
  const live = new Map<string, MessageView>();
  for (const m of streamed) if (m.namespace.length === 0 && !live.has(m.id)) live.set(m.id, m);
  const shown = new Set<string>();
  const out = fromState.map((m) => {
    const streamedOne = live.get(m.id);
    if (streamedOne === undefined) return m;
    shown.add(streamedOne.key);
    return streamedOne;
  });
  for (const m of streamed) if (!shown.has(m.key)) out.push(m);
  return out;
}
