/**
 * `switchboard run <assistant>`: starts a run on a new (or given) thread and
 * streams it until it ends; with `--wait` it stays through interrupts and
 * follows the resumed runs until the thread completes or fails.
 */
import type { ProtocolEvent } from "../../../hub/protocol/index.ts";
import type { ThreadHandle as Thread } from "../../index.ts";
import { CliError, EXIT, HUB_OPTIONS, HUB_OPTIONS_HELP, UsageError, hubTarget, parse, parseJsonFlag, type ExitCode } from "../args.ts";
import { barrier, connect, explain } from "../connect.ts";
import { aborted, type CliContext, type Command } from "../context.ts";
import { Output, preview } from "../output.ts";
import { renderEvent, type RootEnd } from "../thread-view.ts";

const HELP = `Usage: switchboard run <assistant> [--input json] [--thread id] [--wait] [hub options]

Starts a run of <assistant> and streams it: node progress, tokens as they
stream, interrupts as they open (id and payload), and the final state.

Options:
  --input <json>   the run's input, a JSON object (default {})
  --thread <id>    run on this thread (default: a new thread id)
  --wait           stay when the run is interrupted: show answers as they come
                   and follow the resumed runs until the thread completes
${HUB_OPTIONS_HELP}

Exit codes: 0 completed, 1 failed or error, 2 usage, 3 ended interrupted
(answer with \`switchboard review --thread <id>\`), 130 Ctrl-C.`;

/** Seconds without an event before `run` says it is still running. */
const QUIET_S = 10;

const OPTIONS = { ...HUB_OPTIONS, input: { type: "string" }, thread: { type: "string" }, wait: { type: "boolean" } } as const;

export const runCommand: Command = {
  name: "run",
  help: HELP,
  async run(argv, ctx) {
    const { values, positionals } = parse(argv, OPTIONS, 1);
    const assistant = positionals[0];
    if (assistant === undefined) throw new UsageError("run needs an assistant id, e.g. `switchboard run review`");
    const input = values.input === undefined ? {} : inputObject(parseJsonFlag(values.input, "--input"));
    const target = hubTarget(values, ctx.env);
    const out = new Output(target.json, ctx);
    out.status(`connecting to ${target.url}…`);
    const { client } = await connect(target, out);
    try {
      return await follow(client.thread(values.thread), assistant, input, values.wait === true, out, ctx);
    } finally {
      client.close();
    }
  },
};

function inputObject(value: unknown): Record<string, unknown> | null {
  if (value === null) return null;
  if (typeof value !== "object" || Array.isArray(value)) throw new UsageError("--input must be a JSON object (or null)");
  return { ...value };
}

async function follow(thread: Thread, assistant: string, input: Record<string, unknown> | null, wait: boolean, out: Output, ctx: CliContext): Promise<ExitCode> {
  let runId: string | undefined;
  /** Events are shown from the first event of our run on (a replay of earlier runs is not). */
  let fromSeq: number | undefined;
  const early: ProtocolEvent[] = [];
  let settle!: (end: { end: RootEnd; error: string | undefined }) => void;
  const ended = new Promise<{ end: RootEnd; error: string | undefined }>((resolve) => (settle = resolve));
  const hooks = {
    onRootEnd(end: RootEnd, endRunId: string | undefined, error: string | undefined) {
      if (end === "interrupted" && wait) {
        waiting = true;
        const n = thread.interrupts.length;
        out.status(`waiting for ${n} answer${n === 1 ? "" : "s"} — answer with \`switchboard review --thread ${thread.id}\` (Ctrl-C to stop watching)`);
        return;
      }
      if (wait || endRunId === runId) settle({ end, error });
    },
  };
  let lastEventAt = Date.now();
  let waiting = false;
  const show = (event: ProtocolEvent): void => {
    if (fromSeq === undefined || (event.seq !== undefined && event.seq < fromSeq)) return;
    lastEventAt = Date.now();
    waiting = false;
    renderEvent(out, thread.id, event, hooks);
  };
  // Progress on a quiet stretch (a slow model before its first token): a line on stderr.
  const heartbeat = setInterval(() => {
    const quiet = Math.round((Date.now() - lastEventAt) / 1000);
    if (runId !== undefined && !waiting && quiet >= QUIET_S) out.status(`… still running (${thread.status.status}; ${quiet}s since the last event)`);
  }, QUIET_S * 1000);
  heartbeat.unref();
  const off = thread.on("event", (event) => {
    if (runId === undefined) early.push(event);
    else {
      if (fromSeq === undefined && event.run_id === runId) fromSeq = event.seq ?? 0;
      show(event);
    }
  });
  try {
    try {
      await thread.subscribe();
      await barrier(thread);
      const open = thread.interrupts.length;
      if (open > 0) {
        // A new run.start would be taken as the answer to the pending question.
        throw new CliError(`thread ${thread.id} is waiting for ${open} answer${open === 1 ? "" : "s"}: answer with \`switchboard review --thread ${thread.id}\`, or run on a new thread`);
      }
      ({ run_id: runId } = await thread.run(assistant, input));
    } catch (error) {
      throw explain(error);
    }
    out.emit({ type: "run", thread_id: thread.id, run_id: runId, assistant }, `run ${runId} of ${assistant} on thread ${thread.id}`);
    fromSeq = early.find((e) => e.run_id === runId)?.seq;
    for (const event of early.splice(0)) show(event);
    const result = await Promise.race([ended, aborted(ctx.signal).then(() => undefined)]);
    if (result === undefined) {
      out.status(`stopped watching; the run goes on (follow it with \`switchboard watch ${thread.id}\`)`);
      return EXIT.sigint;
    }
    return final(thread, result.end, result.error, out);
  } finally {
    clearInterval(heartbeat);
    off();
  }
}

function final(thread: Thread, end: RootEnd, error: string | undefined, out: Output): ExitCode {
  const pending = thread.interrupts.map((i) => ({ interrupt_id: i.interrupt_id, namespace: i.namespace, node: i.node ?? null, payload: i.payload }));
  out.emit({ type: "final", thread_id: thread.id, run_id: thread.status.run_id, status: end, values: thread.values, interrupts: pending, ...(error ? { error } : {}) });
  out.line(`final state: ${preview(thread.values, 2_000)}`);
  if (end === "completed") return EXIT.ok;
  if (end === "interrupted") {
    out.line(`interrupted: ${pending.length} open interrupt${pending.length === 1 ? "" : "s"}; answer with \`switchboard review --thread ${thread.id}\``);
    return EXIT.interrupted;
  }
  out.error(`the run ${end === "cancelled" ? "was cancelled" : "failed"}${error ? `: ${error}` : ""}`, `run_${end}`);
  return EXIT.error;
}
