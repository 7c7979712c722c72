/** The messages channel: a reducer channel with addMessages (merge by id, RemoveMessage). */
import { addMessages } from "../messages/reducer.ts";
import type { Message, MessagesUpdate } from "../messages/types.ts";
import type { ChannelOptions, ChannelSpec } from "./base.ts";
import { reducer, type Overwrite } from "./reducer.ts";

export function messages(options: ChannelOptions = {}): ChannelSpec<Message[], MessagesUpdate | Overwrite<Message[]>> {
  return reducer<Message[], MessagesUpdate>((current, update) => addMessages(current, update), () => [], options);
}

/** The state schema of a chat agent: `{ messages }`. */
export const MessagesState = { messages: messages() };
