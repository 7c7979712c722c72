/**
 * toolNode and toolsCondition: the prebuilt pair that runs the tool calls of
 * the last AI message and routes to it. Tools run in parallel, report their
 * lifecycle through the run hooks (`tools` stream), and answer each call with
 * a ToolMessage carrying its tool_call_id. The engine's interrupt() pause
 * passes through untouched, so a tool can ask a human for approval.
 */
import { END } from "../constants.ts";
import { toolMessage } from "../messages/index.ts";
import type { InvalidToolCall, Message, ToolCall, ToolMessage } from "../messages/index.ts";
import { observeToolCall } from "../runtime/hooks.ts";
import type { ToolCallObserver } from "../runtime/hooks.ts";
import { MODEL_ERROR_CODES, ModelError, isGraphInterruptLike } from "./errors.ts";
import type { JsonSchema, Tool, ToolSchema } from "./types.ts";

export interface ToolNodeOptions {
  /**
   * Answer a call whose tool threw with an error ToolMessage, so the model can
   * react (default true); false rethrows and fails the node. Unknown tools and
   * arguments that do not fit the schema are the model's mistake and always
   * get an error message.
   */
  handleErrors?: boolean;
}

export interface ToolNodeState {
  messages: readonly Message[];
}

/** What the node reads beside state: the engine's Runtime fits. */
export interface ToolNodeRuntime {
  signal?: AbortSignal;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isInteger(value)) return "integer";
  return typeof value;
}

function fits(value: unknown, type: NonNullable<JsonSchema["type"]>): boolean {
  if (typeof type !== "string") return true; // a type union: leave it to the tool
  const kind = kindOf(value);
  if (type === "number") return kind === "number" || kind === "integer";
  return kind === type;
}

/** A shallow check against the schema: enough for the model to correct itself. */
function argsProblem(schema: ToolSchema, args: Record<string, unknown>): string | undefined {
  for (const key of schema.required ?? []) {
    if (args[key] === undefined) return `missing required argument "${key}"`;
  }
  for (const [key, value] of Object.entries(args)) {
    const property = schema.properties?.[key];
    if (!property) {
      if (schema.additionalProperties === false) return `unknown argument "${key}"`;
      continue;
    }
    if (property.type !== undefined && !fits(value, property.type)) {
      return `argument "${key}" must be of type ${String(property.type)}, got ${kindOf(value)}`;
    }
  }
  return undefined;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function failure(call: { id: string; name: string }, text: string): ToolMessage {
  return toolMessage(`Error: ${text}`, { tool_call_id: call.id, name: call.name, status: "error" });
}

/** The ToolMessage for a tool's return value. */
function success(call: ToolCall, output: unknown): ToolMessage {
  if (typeof output === "object" && output !== null && (output as { type?: unknown }).type === "tool") {
    // A tool that builds its own ToolMessage (e.g. to set status) still answers this call.
    return { ...(output as ToolMessage), tool_call_id: call.id, name: call.name };
  }
  // JSON.stringify gives undefined for functions and symbols: fall back to their text.
  const content = typeof output === "string" ? output : output === undefined ? "" : (JSON.stringify(output) ?? String(output));
  return toolMessage(content, { tool_call_id: call.id, name: call.name, status: "success" });
}

async function runCall(
  call: ToolCall,
  tools: ReadonlyMap<string, Tool>,
  handleErrors: boolean,
  signal: AbortSignal | undefined,
): Promise<ToolMessage> {
  const observer: ToolCallObserver | undefined = observeToolCall({ toolCallId: call.id, name: call.name, input: call.args });
  const fail = (text: string): ToolMessage => {
    observer?.onError(text);
    return failure(call, text);
  };
  const t = tools.get(call.name);
  if (!t) {
    const names = [...tools.keys()].map((n) => `"${n}"`).join(", ") || "none";
    return fail(`tool "${call.name}" does not exist (available: ${names})`);
  }
  const problem = argsProblem(t.schema, call.args);
  if (problem) return fail(`invalid arguments for tool "${call.name}": ${problem}`);
  let message: ToolMessage;
  try {
    const ctx = { toolCall: call, writeOutput: (delta: unknown) => observer?.onOutputDelta(delta), ...(signal ? { signal } : {}) };
    const output = await t.invoke(call.args, ctx);
    // Serializing can throw too (a cycle, a BigInt): that is the tool's failure.
    message = success(call, output);
  } catch (error) {
    if (isGraphInterruptLike(error)) throw error;
    observer?.onError(errorText(error));
    if (!handleErrors) throw error;
    return failure(call, errorText(error));
  }
  observer?.onFinished(message.content);
  return message;
}

/** Calls the model could not form (bad JSON arguments) still need an answer. */
function answerInvalid(call: InvalidToolCall & { id: string }): ToolMessage {
  const name = call.name ?? "unknown";
  const text = `invalid tool call: ${call.error}`;
  observeToolCall({ toolCallId: call.id, name, input: call.args })?.onError(text);
  return failure({ id: call.id, name }, text);
}

/** A graph node that runs the tool calls of the last AI message in `state.messages`. */
export function toolNode(
  tools: readonly Tool[],
  options: ToolNodeOptions = {},
): (state: ToolNodeState, runtime?: ToolNodeRuntime) => Promise<{ messages: ToolMessage[] }> {
  const byName = new Map(tools.map((t) => [t.name, t] as const));
  const handleErrors = options.handleErrors ?? true;
  return async (state, runtime) => {
    const last = state.messages.at(-1);
    if (!last || last.type !== "ai") {
      throw new ModelError(
        MODEL_ERROR_CODES.NO_AI_MESSAGE,
        `toolNode expects the last message to be an AI message, got ${last ? `a "${last.type}" message` : "no messages"}`,
      );
    }
    const jobs = [
      ...last.tool_calls.map((call) => runCall(call, byName, handleErrors, runtime?.signal)),
      ...(last.invalid_tool_calls ?? [])
        .filter((c): c is InvalidToolCall & { id: string } => Boolean(c.id))
        .map(async (c) => answerInvalid(c)),
    ];
    // Wait for every call before failing: no tool keeps running after its node ended.
    const settled = await Promise.allSettled(jobs);
    const rejected = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected");
    const pause = rejected.find((s) => isGraphInterruptLike(s.reason));
    if (pause) throw pause.reason;
    if (rejected[0]) throw rejected[0].reason;
    return { messages: settled.map((s) => (s as PromiseFulfilledResult<ToolMessage>).value) };
  };
}

/** Routes to "tools" when the last AI message asks for tool calls, else to END. */
export function toolsCondition(state: ToolNodeState | readonly Message[]): "tools" | typeof END {
  const messages = Array.isArray(state) ? (state as readonly Message[]) : (state as ToolNodeState).messages;
  const last = messages.at(-1);
  if (last?.type !== "ai") return END;
  const invalid = (last.invalid_tool_calls ?? []).some((c) => c.id);
  return last.tool_calls.length > 0 || invalid ? "tools" : END;
}
