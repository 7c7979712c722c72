/**
 * `switchboard review`: a line-based review session on stdin/stdout (works
 * piped). Lists the open items, shows payloads, claims and answers, and
 * prints other reviewers' claims and answers as they arrive. Items keep the
 * number they were first shown with for the whole session.
 */
import { createInterface } from "node:readline";
import { proposedCallOf, type InterruptView, type ResolvedInterrupt } from "../../index.ts";
import { CliError, EXIT, HUB_OPTIONS, HUB_OPTIONS_HELP, hubTarget, parse, parseAnswer, type ExitCode } from "../args.ts";
import { connect, explain, hasCode, requireThread, type Lost } from "../connect.ts";
import { aborted, type CliContext, type Command } from "../context.ts";
import { Output, preview, who } from "../output.ts";
import { openSource, type ReviewSource } from "../review-source.ts";

const HELP = `Usage: switchboard review [--queue q] [--thread id] [hub options]

Interactive review on stdin/stdout, one command per line (also piped):
  list                    the open items you may answer
  show <n>                an item's full payload
  claim <n> [seconds]     lease it, so other reviewers see it taken
  release <n>             give the lease back
  answer <n> <answer>     answer it with JSON: {"approve": true}, true, "looks good"
  answer <n> --text <t>   answer it with the text <t> as typed (no quotes needed)
  answer all <answer>     answer every open item with the same answer (one resume)
  wait                    wait until at least one item is open
  help, quit              (end of input also quits)
<n> is the item's number from the list, or its interrupt id. Other reviewers'
claims and answers are printed as they arrive.

Options:
  --queue <name>   review a queue across threads (default queue: "default")
  --thread <id>    review the pending interrupts of one thread. Hubs without
                   review queues (queue.subscribe → not_supported) fall back to
                   this; without --thread, review then says so and exits 1.
${HUB_OPTIONS_HELP}`;

const OPTIONS = { ...HUB_OPTIONS, queue: { type: "string" }, thread: { type: "string" } } as const;

export const reviewCommand: Command = {
  name: "review",
  help: HELP,
  async run(argv, ctx) {
    const { values } = parse(argv, OPTIONS, 0);
    const target = hubTarget(values, ctx.env);
    const out = new Output(target.json, ctx);
    out.status(`connecting to ${target.url}…`);
    const { client, lost } = await connect(target, out);
    try {
      const source = await openSource(
        client,
        { queue: values.queue, thread: values.thread },
        (text) => out.emit({ type: "notice", message: text }, `note: ${text}`),
        (threadId) => requireThread(target, threadId),
      );
      const session = new ReviewSession(source, out);
      try {
        return await session.run(ctx, lost);
      } finally {
        session.dispose();
        await source.close().catch(() => undefined);
      }
    } finally {
      client.close();
    }
  },
};

class ReviewSession {
  readonly #numbers = new Map<string, number>();
  /** Items as last printed: what changed is announced. */
  #known = new Map<string, InterruptView>();
  #announcedResolved = new Set<string>();
  #waiters: Array<() => void> = [];
  readonly #off: () => void;

  constructor(
    readonly source: ReviewSource,
    readonly out: Output,
  ) {
    for (const r of source.resolved()) this.#announcedResolved.add(r.interrupt_id);
    this.#off = source.onChange(() => this.#changed());
  }

  async run(ctx: CliContext, lost: Promise<Lost>): Promise<ExitCode> {
    this.#list(`reviewing ${this.source.label}`);
    if (ctx.interactive) this.out.status("type `help` for commands");
    const lines = createInterface({ input: ctx.stdin, crlfDelay: Infinity, terminal: false });
    let gone: Lost | undefined;
    const stop = Promise.race([
      aborted(ctx.signal).then(() => "abort" as const),
      lost.then((l) => {
        gone = l;
        return "abort" as const;
      }),
    ]);
    const wake = (): void => {
      for (const w of this.#waiters.splice(0)) w();
    };
    ctx.signal.addEventListener("abort", wake, { once: true });
    const prompt = (): void => {
      if (ctx.interactive && !this.out.json) ctx.stdout.write("review> ");
    };
    prompt();
    try {
      for await (const line of withStop(lines, stop)) {
        if (await this.#command(line.trim())) break;
        prompt();
      }
    } finally {
      ctx.signal.removeEventListener("abort", wake);
      lines.close();
    }
    if (ctx.signal.aborted) return EXIT.sigint;
    if (gone !== undefined) {
      if (gone.exitCode !== EXIT.ok) throw new CliError(gone.message, gone.exitCode);
      this.out.emit({ type: "notice", message: gone.message });
      this.out.status(gone.message);
      return gone.exitCode;
    }
    return EXIT.ok;
  }

  dispose(): void {
    this.#off();
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Runs one command line; true = quit. */
  async #command(line: string): Promise<boolean> {
    const [verb = "", ...rest] = line.split(/\s+/);
    const arg = rest[0];
    try {
      switch (verb) {
        case "":
          return false;
        case "quit":
        case "exit":
          return true;
        case "help":
          this.out.line(HELP.split("\n").slice(2, 15).join("\n"));
          return false;
        case "list":
        case "ls":
          this.#list();
          return false;
        case "wait":
          await this.#waitForItems();
          this.#list();
          return false;
        case "show": {
          const item = this.#item(arg);
          this.out.emit({ type: "interrupt", ...this.#record(item) }, `[${this.#number(item)}] ${item.interrupt_id}\n${JSON.stringify(item.payload, null, 2)}`);
          return false;
        }
        case "claim": {
          const item = this.#item(arg);
          const seconds = rest[1] === undefined ? undefined : Number(rest[1]);
          if (seconds !== undefined && !(seconds > 0)) throw new InputError("claim <n> [seconds]: seconds must be a positive number");
          const { expires_at } = await this.source.claim(item, seconds === undefined ? undefined : seconds * 1000);
          this.out.emit({ type: "claim", ok: true, interrupt_id: item.interrupt_id, expires_at }, `claimed [${this.#number(item)}] until ${new Date(expires_at).toLocaleTimeString()}`);
          return false;
        }
        case "release": {
          const item = this.#item(arg);
          await this.source.release(item);
          this.out.emit({ type: "release", ok: true, interrupt_id: item.interrupt_id }, `released [${this.#number(item)}]`);
          return false;
        }
        case "answer":
        case "a": {
          const text = /^\S+\s+\S+\s*(.*)$/s.exec(line)?.[1]?.trim() ?? "";
          if (arg === undefined || text === "") throw new InputError("answer <n> <answer>: say which item and what to answer");
          const parsed = parseAnswer(text, `answer ${arg}`);
          if (!parsed.ok) throw new InputError(parsed.message);
          const value = parsed.value;
          const items = arg === "all" ? [...this.source.items()] : [this.#item(arg)];
          if (items.length === 0) throw new InputError("there are no open items");
          if (items.length === 1 && items[0]) await this.source.answer(items[0], value);
          else await this.source.answerMany(items, value);
          for (const item of items) {
            this.out.emit({ type: "answer", ok: true, interrupt_id: item.interrupt_id, thread_id: item.thread_id ?? null, value }, `answered [${this.#number(item)}] with ${preview(value)}`);
          }
          return false;
        }
        default:
          throw new InputError(`unknown command ${JSON.stringify(verb)} (type \`help\`)`);
      }
    } catch (error) {
      this.#report(error);
      return false;
    }
  }

  #report(error: unknown): void {
    if (error instanceof InputError) return this.out.error(error.message, "input");
    if (hasCode(error, "already_answered")) {
      const by = error.details?.["answered_by"];
      const actor = typeof by === "object" && by !== null && "sub" in by && typeof by.sub === "string" ? { sub: by.sub, ...("name" in by && typeof by.name === "string" ? { name: by.name } : {}) } : undefined;
      return this.out.error(`too late: already answered${actor ? ` by ${who(actor)}` : ""}`, error.code);
    }
    if (hasCode(error, "claim_held")) return this.out.error(`someone else holds the claim: ${error.message}`, error.code);
    if (hasCode(error, "not_supported")) return this.out.error(`this hub does not support that yet (${error.message}); answer directly`, error.code);
    const cli = explain(error);
    this.out.error(cli.message, error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined);
  }

  /** An open item by its number, its interrupt id, or a unique id prefix (4+ characters). */
  #item(ref: string | undefined): InterruptView {
    if (ref === undefined) throw new InputError("which item? give its number or interrupt id");
    const items = this.source.items();
    const n = /^\d{1,3}$/.test(ref) ? Number(ref) : undefined;
    const found = items.find((i) => (n !== undefined ? this.#numbers.get(key(i)) === n : i.interrupt_id === ref));
    if (found) return found;
    const gone = this.source.resolved().find((r) => (n !== undefined ? this.#numbers.get(key(r)) === n : r.interrupt_id === ref));
    if (gone) throw new InputError(`[${ref}] is no longer open: ${outcome(gone)}`);
    const byPrefix = n === undefined && ref.length >= 4 ? items.filter((i) => i.interrupt_id.startsWith(ref)) : [];
    if (byPrefix.length === 1 && byPrefix[0]) return byPrefix[0];
    throw new InputError(`no open item ${ref} (type \`list\`)`);
  }

  #number(item: InterruptView): number {
    let n = this.#numbers.get(key(item));
    if (n === undefined) {
      n = this.#numbers.size + 1;
      this.#numbers.set(key(item), n);
    }
    return n;
  }

  #record(item: InterruptView): Record<string, unknown> {
    return {
      n: this.#number(item),
      interrupt_id: item.interrupt_id,
      thread_id: item.thread_id ?? null,
      namespace: item.namespace,
      node: item.node ?? null,
      status: item.status,
      claimed_by: item.claimed_by ?? null,
      payload: item.payload,
    };
  }

  #line(item: InterruptView): string {
    const claim = item.status === "claimed" ? ` (claimed by ${who(item.claimed_by)})` : "";
    const where = this.source.kind === "queue" ? ` thread ${item.thread_id ?? "?"}` : "";
    const node = item.node === undefined ? "" : ` ${item.node}`;
    return `  [${this.#number(item)}] ${item.interrupt_id}${where}${node}${claim}: ${whatIsAsked(item)}`;
  }

  #list(heading?: string): void {
    const items = this.source.items();
    this.#known = new Map(items.map((i) => [key(i), i]));
    this.out.emit({ type: "items", source: this.source.label, items: items.map((i) => this.#record(i)) });
    if (heading) this.out.line(heading);
    if (items.length === 0) this.out.line("no open items; new ones appear here as they open");
    else this.out.line(`${items.length} open item${items.length === 1 ? "" : "s"}:\n${items.map((i) => this.#line(i)).join("\n")}`);
  }

  /** Announces what changed since the last print: new items, claims, answers by anyone. */
  #changed(): void {
    const items = this.source.items();
    const next = new Map(items.map((i) => [key(i), i]));
    for (const [k, item] of next) {
      const before = this.#known.get(k);
      if (!before) this.out.emit({ type: "interrupt", ...this.#record(item) }, `+ new item\n${this.#line(item)}`);
      else if (before.status !== item.status || before.claimed_by?.sub !== item.claimed_by?.sub) {
        if (item.status === "claimed") this.out.emit({ type: "claimed", interrupt_id: item.interrupt_id, claimed_by: item.claimed_by ?? null }, `  [${this.#number(item)}] claimed by ${who(item.claimed_by)}`);
        else this.out.emit({ type: "released", interrupt_id: item.interrupt_id }, `  [${this.#number(item)}] is open again`);
      }
    }
    for (const r of this.source.resolved()) this.#announce(r);
    this.#known = next;
    if (items.length > 0) for (const w of this.#waiters.splice(0)) w();
  }

  #announce(r: ResolvedInterrupt): void {
    if (this.#announcedResolved.has(r.interrupt_id)) return;
    this.#announcedResolved.add(r.interrupt_id);
    const n = this.#numbers.get(key(r));
    const label = n === undefined ? r.interrupt_id : `[${n}] ${r.interrupt_id}`;
    const how = outcome(r);
    this.out.emit(
      { type: r.outcome, interrupt_id: r.interrupt_id, thread_id: r.thread_id ?? null, outcome: r.outcome, answered_by: r.answered_by ?? null, ...(r.reason === undefined ? {} : { reason: r.reason }) },
      `- ${label} ${how}`,
    );
  }

  #waitForItems(): Promise<void> {
    if (this.source.items().length > 0) return Promise.resolve();
    this.out.status("waiting for an open item…");
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

class InputError extends Error {}

function outcome(r: ResolvedInterrupt): string {
  if (r.outcome === "answered") return `answered by ${who(r.answered_by)}`;
  return r.outcome === "expired" ? `expired (${r.action ?? "none"})` : `withdrawn (${r.reason ?? "its run was cancelled"})`;
}

const key = (item: { thread_id?: string | undefined; interrupt_id: string }): string => `${item.thread_id ?? ""}|${item.interrupt_id}`;

/** The lines of `lines` until `stop` resolves. */
async function* withStop(lines: AsyncIterable<string>, stop: Promise<"abort">): AsyncGenerator<string> {
  const it = lines[Symbol.asyncIterator]();
  while (true) {
    const next = await Promise.race([it.next(), stop]);
    if (next === "abort" || next.done) return;
    yield next.value;
  }
}

/**
 * One action of a multi-action request (its queue copy says which): the
 * action and its arguments, `action 1 of 2: issue_refund {"order":…}`; any
 * other question: its payload.
 */
function whatIsAsked(item: InterruptView): string {
  const action = item.review?.action;
  if (action === undefined) return preview(item.payload);
  return `action ${action.index + 1} of ${action.count}: ${action.name} ${preview(argsOf(item.payload), 120)}`;
}

/** The arguments of a per-action item's call: LangChain's request, or Agent Inbox's one-item list. */
function argsOf(payload: unknown): unknown {
  const call = proposedCallOf(payload);
  if (call !== null) return call.args;
  const [inbox] = Array.isArray(payload) ? payload : [];
  const request: unknown = inbox !== null && typeof inbox === "object" ? Reflect.get(inbox, "action_request") : undefined;
  return (request !== null && typeof request === "object" ? Reflect.get(request, "args") : undefined) ?? {};
}
