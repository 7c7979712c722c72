/**
 * The LangGraph API's run-stream format, translated from the protocol events
 * of one run in the thread log — the log stays the one source of every
 * stream: a run started over REST is the same run `/threads/:id/stream`
 * subscribers see, and the other way round. One translator per HTTP stream;
 * it keeps what the modes accumulate (open messages, the run's interrupts,
 * the step) so a stream replayed from the run's first event rebuilds it.
 *
 * Events are named by mode, `mode|ns1|ns2` for subgraph events when
 * `stream_subgraphs` is set. `__interrupt__: [{ id, value }]` appears in
 * `updates` as each interrupt is raised and in a last `values` event when the
 * run ends interrupted, as the LangGraph server sends them.
 */
import type { ProtocolEvent } from "../../protocol/index.ts";
import { MessageFormatter, type MessageOutput } from "./messages-format.ts";

export const LG_STREAM_MODES = ["values", "updates", "messages", "messages-tuple", "custom", "events", "debug", "tasks", "checkpoints"] as const;
export type LgStreamMode = (typeof LG_STREAM_MODES)[number];

export function isLgStreamMode(value: unknown): value is LgStreamMode {
  return LG_STREAM_MODES.some((m) => m === value);
}

export interface LgFrame {
  event: string;
  data: unknown;
}

export interface TranslatorOptions {
  modes: ReadonlySet<LgStreamMode>;
  subgraphs: boolean;
  threadId: string;
  runId: string;
  graphId: string;
  /** The `checkpoints` payload of a root checkpoint (read from the checkpointer). */
  readCheckpoint: (checkpointId: string) => Promise<Record<string, unknown> | undefined>;
}

/** How the run ended, once its root terminal lifecycle event went through. */
export type RunEnd = { status: "completed" | "interrupted" } | { status: "failed"; error: string; message: string };

export class RunStreamTranslator {
  readonly #o: TranslatorOptions;
  readonly #messages = new MessageFormatter();
  readonly #interrupts: Array<{ id: string; value: unknown }> = [];
  #step = -1;
  #values: Record<string, unknown> | undefined;
  #end: RunEnd | undefined;

  constructor(options: TranslatorOptions) {
    this.#o = options;
  }

  get end(): RunEnd | undefined {
    return this.#end;
  }

  /**
   * The frames of one log event. With `emit` false only the state moves on
   * (a replay skipping what the client already has): no checkpoint is read.
   */
  async push(event: ProtocolEvent, emit: boolean): Promise<LgFrame[]> {
    if (this.#end) return [];
    const out: LgFrame[] = [];
    const { modes } = this.#o;
    const ns = event.params.namespace;
    const root = ns.length === 0;
    const name = (mode: string): string => (this.#o.subgraphs && !root ? `${mode}|${ns.join("|")}` : mode);
    // Subgraph events of the state modes only with stream_subgraphs, as in LangGraph.
    const visible = root || this.#o.subgraphs;
    switch (event.method) {
      case "values":
        if (root) this.#values = event.params.data;
        if (visible && modes.has("values")) out.push({ event: name("values"), data: event.params.data });
        break;
      case "updates":
        if (visible && modes.has("updates")) out.push({ event: name("updates"), data: { [event.params.data.node ?? event.params.node ?? "__unknown__"]: event.params.data.values } });
        break;
      case "input.requested": {
        // Interrupts bubble to the root graph; LangGraph reports them there.
        const interrupt = { id: event.params.data.interrupt_id, value: event.params.data.payload };
        this.#interrupts.push(interrupt);
        if (modes.has("updates")) out.push({ event: "updates", data: { __interrupt__: [interrupt] } });
        break;
      }
      case "custom":
        if (visible && modes.has("custom")) {
          const { name: customName, payload } = event.params.data;
          out.push({ event: name("custom"), data: customName === undefined ? payload : { name: customName, payload } });
        }
        break;
      case "messages":
        this.#pushMessages(event, out, name);
        break;
      case "tasks":
        this.#pushTask(event, out, name, visible);
        break;
      case "checkpoints":
        if (root) this.#step = event.params.data.step;
        if (root && emit && (modes.has("checkpoints") || modes.has("debug"))) {
          const payload = await this.#o.readCheckpoint(event.params.data.id);
          if (payload) {
            if (modes.has("checkpoints")) out.push({ event: "checkpoints", data: payload });
            if (modes.has("debug")) out.push({ event: "debug", data: { step: this.#step, type: "checkpoint", timestamp: new Date(event.params.timestamp).toISOString(), payload } });
          }
        }
        break;
      case "lifecycle":
        if (root) this.#pushLifecycle(event, out);
        break;
      case "tools":
      case "input.answered":
      case "input.claimed":
      case "input.released":
      case "input.expired":
      case "input.cancelled":
      case "input.escalated":
      case "input.reminder":
      case "presence":
      case "resync":
        // Switchboard's own channels: no LangGraph stream mode carries them.
        break;
    }
    return emit ? out : [];
  }

  #pushLifecycle(event: Extract<ProtocolEvent, { method: "lifecycle" }>, out: LgFrame[]): void {
    const data = event.params.data;
    const chain = (kind: "on_chain_start" | "on_chain_end", body: Record<string, unknown>) => ({
      event: "events",
      data: { event: kind, name: this.#o.graphId, run_id: this.#o.runId, tags: [], metadata: this.#metadata(), data: body },
    });
    switch (data.event) {
      case "started":
        if (this.#o.modes.has("events")) out.push(chain("on_chain_start", {}));
        return;
      case "completed":
        if (this.#o.modes.has("events")) out.push(chain("on_chain_end", { output: this.#values ?? {} }));
        this.#end = { status: "completed" };
        return;
      case "interrupted":
        if (this.#o.modes.has("values")) out.push({ event: "values", data: { __interrupt__: [...this.#interrupts] } });
        this.#end = { status: "interrupted" };
        return;
      case "failed": {
        const message = data.error ?? "run failed";
        const end: RunEnd = data.cancelled ? { status: "failed", error: "CancelledError", message } : { status: "failed", error: "RunError", message };
        out.push({ event: "error", data: { error: end.error, message: end.message } });
        this.#end = end;
        return;
      }
      default:
        return;
    }
  }

  #pushTask(event: Extract<ProtocolEvent, { method: "tasks" }>, out: LgFrame[], name: (mode: string) => string, visible: boolean): void {
    if (!visible) return;
    const data = event.params.data;
    const isResult = data.interrupts !== undefined;
    const step = event.params.namespace.length === 0 ? this.#step + 1 : this.#step;
    const payload = isResult
      ? { id: data.id, name: data.name, error: data.error ?? null, result: data.result ?? null, interrupts: data.interrupts ?? [] }
      : { id: data.id, name: data.name, input: data.input, triggers: data.triggers ?? [] };
    if (this.#o.modes.has("tasks")) out.push({ event: name("tasks"), data: payload });
    if (this.#o.modes.has("debug")) {
      out.push({ event: name("debug"), data: { step, type: isResult ? "task_result" : "task", timestamp: new Date(event.params.timestamp).toISOString(), payload } });
    }
    if (this.#o.modes.has("events")) {
      const body = isResult ? { output: data.result ?? null } : { input: data.input };
      out.push({ event: name("events"), data: { event: isResult ? "on_chain_end" : "on_chain_start", name: data.name, run_id: data.id, tags: [], metadata: this.#metadata(event.params.node), data: body } });
    }
  }

  #pushMessages(event: Extract<ProtocolEvent, { method: "messages" }>, out: LgFrame[], name: (mode: string) => string): void {
    const { modes } = this.#o;
    const ctx = { threadId: this.#o.threadId, runId: this.#o.runId, namespace: event.params.namespace, node: event.params.node };
    const result: MessageOutput = this.#messages.push(event.params.data, ctx);
    // Tokens of nested graphs stream even without stream_subgraphs, as LangGraph's messages modes do.
    if (modes.has("messages-tuple") && result.tuple) out.push({ event: name("messages"), data: result.tuple });
    if (modes.has("messages")) {
      if (result.metadata) out.push({ event: name("messages/metadata"), data: result.metadata });
      if (result.partial) out.push({ event: name("messages/partial"), data: result.partial });
      if (result.complete) out.push({ event: name("messages/complete"), data: result.complete });
    }
    if (modes.has("events")) {
      const base = { run_id: this.#o.runId, name: "chat_model", tags: [], metadata: this.#metadata(event.params.node) };
      if (result.metadata) out.push({ event: name("events"), data: { ...base, event: "on_chat_model_start", data: {} } });
      if (result.tuple) out.push({ event: name("events"), data: { ...base, event: "on_chat_model_stream", data: { chunk: result.tuple[0] } } });
      if (result.complete) out.push({ event: name("events"), data: { ...base, event: "on_chat_model_end", data: { output: result.complete[0] } } });
    }
  }

  #metadata(node?: string): Record<string, unknown> {
    return { thread_id: this.#o.threadId, run_id: this.#o.runId, graph_id: this.#o.graphId, ...(node === undefined ? {} : { langgraph_node: node }) };
  }
}
