/**
 * `switchboard watch <thread>`: a live view of a thread — the current run
 * from its start, then everything live — and who else is watching (presence,
 * when the hub relays it). Runs until Ctrl-C, or with `--until-end` until a
 * run completes or fails.
 */
import { CliError, EXIT, HUB_OPTIONS, HUB_OPTIONS_HELP, UsageError, hubTarget, parse } from "../args.ts";
import { barrier, connect, explain, hasCode, requireThread } from "../connect.ts";
import { aborted, type Command } from "../context.ts";
import { Output, preview } from "../output.ts";
import { renderEvent, type RootEnd } from "../thread-view.ts";
import type { PresenceEntry, ThreadHandle } from "../../index.ts";

const HELP = `Usage: switchboard watch <thread> [--name you] [--until-end] [hub options]

A live view of a thread: node progress, tokens as they stream, interrupts as
they open, get claimed and get answered (and by whom), and who is watching.
Joining mid-run shows the current run from its start. A thread id the hub has
never seen is an error (exit 1), not a wait. When the hub shuts down, watch
says so and exits 0; a lost connection is retried for a few seconds, then exit 1.

Options:
  --name <label>   a label next to your name in others' presence (default $USER)
  --until-end      exit when a run completes (0) or fails (1) instead of on Ctrl-C
${HUB_OPTIONS_HELP}

Presence needs hub support; when the hub does not relay it, watch says so.`;

const OPTIONS = { ...HUB_OPTIONS, name: { type: "string" }, "until-end": { type: "boolean" } } as const;

export const watchCommand: Command = {
  name: "watch",
  help: HELP,
  async run(argv, ctx) {
    const { values, positionals } = parse(argv, OPTIONS, 1);
    const threadId = positionals[0];
    if (threadId === undefined) throw new UsageError("watch needs a thread id, e.g. `switchboard watch 3f2c…` (run prints it)");
    const target = hubTarget(values, ctx.env);
    const out = new Output(target.json, ctx);
    out.status(`connecting to ${target.url}…`);
    const { client, lost } = await connect(target, out);
    try {
      await requireThread(target, threadId);
    } catch (error) {
      client.close();
      throw error;
    }
    const thread = client.thread(threadId);
    let settle!: (end: { end: RootEnd; error: string | undefined }) => void;
    const ended = new Promise<{ end: RootEnd; error: string | undefined }>((resolve) => (settle = resolve));
    const untilEnd = values["until-end"] === true;
    const offs = [
      thread.on("event", (event) =>
        renderEvent(out, thread.id, event, {
          onRootEnd: (end, _runId, error) => {
            if (untilEnd && end !== "interrupted") settle({ end, error });
          },
        }),
      ),
    ];
    try {
      out.line(`watching thread ${thread.id} (Ctrl-C to stop)`);
      try {
        await thread.subscribe();
        await barrier(thread);
      } catch (error) {
        throw explain(error, target);
      }
      out.emit({ type: "connected", thread_id: thread.id, status: thread.status.status }, `— live (thread status: ${thread.status.status})`);
      offs.push(...(await watchPresence(thread, values.name ?? ctx.env["USER"] ?? "cli", out)));
      const result = await Promise.race([ended, aborted(ctx.signal).then(() => undefined), lost]);
      if (result === undefined) return EXIT.sigint;
      if ("exitCode" in result) {
        if (result.exitCode !== EXIT.ok) throw new CliError(result.message, result.exitCode);
        out.emit({ type: "notice", message: result.message });
        out.status(result.message);
        return result.exitCode;
      }
      out.emit({ type: "final", thread_id: thread.id, status: result.end, values: thread.values }, `final state: ${preview(thread.values, 2_000)}`);
      return result.end === "completed" ? EXIT.ok : EXIT.error;
    } finally {
      for (const off of offs) off();
      await thread.close().catch(() => undefined);
      client.close();
    }
  },
};

/** Announces us and prints the watchers whenever they change; says so when the hub has no presence. */
async function watchPresence(thread: ThreadHandle, label: string, out: Output): Promise<Array<() => void>> {
  // The hub stamps `user` with the authenticated identity; `session` tells our own entry apart.
  const session = globalThis.crypto.randomUUID();
  try {
    await thread.setPresence({ client: "switchboard-cli", label, session });
  } catch (error) {
    if (!hasCode(error, "not_supported")) throw explain(error);
    out.emit({ type: "presence", thread_id: thread.id, supported: false }, "presence: this hub does not relay presence yet, so other watchers are not shown");
    return [];
  }
  let last = "";
  const show = (entries: readonly PresenceEntry[]): void => {
    const others = entries.filter((e) => e.state["session"] !== session).map(nameOf);
    const text = others.join(", ");
    if (text === last && last !== "") return;
    last = text;
    out.emit(
      { type: "presence", thread_id: thread.id, supported: true, watchers: others },
      `watching now: you${others.length > 0 ? `, ${text}` : " (nobody else)"}`,
    );
  };
  show(thread.presence);
  return [thread.on("presence", show)];
}

/** The hub-stamped user name, with the client's own label when it adds something. */
function nameOf(entry: PresenceEntry): string {
  const user = entry.state["user"];
  const name = typeof user === "object" && user !== null && "name" in user && typeof user.name === "string" ? user.name : `client ${entry.clientId}`;
  const label = entry.state["label"];
  return typeof label === "string" && label !== "" && label !== name ? `${name} [${label}]` : name;
}
