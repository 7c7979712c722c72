/** The messages channel: a reducer channel with addMessages (merge by id, RemoveMessage). */
import { addMessages } from "../messages/reducer.ts";
import type { Message, MessagesUpdate } from "../messages/types.ts";
import type { ChannelOptions, ChannelSpec } from "./base.ts";
import { reducer, type Overwrite } from "./reducer.ts";

/** What a messages channel holds: messages with a role (or LangChain type) and content. */
const MESSAGES_SCHEMA = {
  type: "array",
  items: { type: "object", properties: { id: { type: "string" }, role: { type: "string" }, type: { type: "string" }, content: {} }, additionalProperties: true },
} as const;

export function messages(options: ChannelOptions = {}): ChannelSpec<Message[], MessagesUpdate | Overwrite<Message[]>> {
  return reducer<Message[], MessagesUpdate>((current, update) => addMessages(current, update), () => [], { schema: MESSAGES_SCHEMA, ...options });
}

/** The state schema of a chat agent: `{ messages }`. */
export const MessagesState = { messages: messages() };
