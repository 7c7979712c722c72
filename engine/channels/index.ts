export type { Channel, ChannelSpec, ChannelOptions, AnyChannelSpec } from "./base.ts";
export { lastValue, type LastValueOptions } from "./last-value.ts";
export { reducer, overwrite, isOverwrite, type Overwrite } from "./reducer.ts";
export { topic, type TopicOptions } from "./topic.ts";
export { ephemeral } from "./ephemeral.ts";
export { namedBarrier } from "./named-barrier.ts";
export { messages, MessagesState } from "./messages.ts";
