/**
 * Where the CLI writes: human lines (with tokens streamed inline) or, with
 * `--json`, one JSON record per line on stdout. Status and progress go to
 * stderr so stdout stays clean for pipes. Every human line goes through
 * `printable`: a label, a name or a token stream with a terminal escape in it
 * is shown escaped, never acted on (JSON records are escaped by JSON itself).
 */
import type { Writable } from "node:stream";
import { printable } from "../printable.ts";

/** The `type` of every `--json` record (documented in client/cli/README.md). */
export type RecordType =
  | "connected"
  | "run"
  | "lifecycle"
  | "node"
  | "token"
  | "message"
  | "tool"
  | "interrupt"
  | "claimed"
  | "released"
  | "answered"
  | "expired"
  | "cancelled"
  | "escalated"
  | "reminder"
  | "presence"
  | "final"
  | "items"
  | "answer"
  | "claim"
  | "release"
  | "notice"
  | "error";

export type CliRecord = { type: RecordType } & Record<string, unknown>;

export interface OutputStreams {
  stdout: Writable;
  stderr: Writable;
}

export class Output {
  /** The key of the token stream the current stdout line belongs to, if one is open. */
  #inline: string | undefined;

  constructor(
    readonly json: boolean,
    readonly streams: OutputStreams,
  ) {}

  /** A record: the JSON line, or its human rendering (skipped when `human` is undefined). */
  emit(record: CliRecord, human?: string): void {
    if (this.json) this.#write(`${JSON.stringify(record)}\n`);
    else if (human !== undefined) this.line(human);
  }

  /** A whole human line (ends any open token stream first). */
  line(text: string): void {
    if (this.json) return;
    this.#close();
    this.#write(`${printable(text, { keepNewlines: true })}\n`);
  }

  /** Streams `text` on the line of `key`; a different key starts a new line with `prefix`. */
  inline(key: string, prefix: string, text: string): void {
    if (this.json) return;
    if (this.#inline !== key) {
      this.#close();
      this.#write(printable(prefix));
      this.#inline = key;
    }
    this.#write(printable(text, { keepNewlines: true }));
  }

  /** Ends the token stream of `key` (if it is the open one). */
  endInline(key: string): void {
    if (this.#inline === key) this.#close();
  }

  /** Progress and status for people, on stderr (also in --json mode). */
  status(text: string): void {
    this.#close();
    this.streams.stderr.write(`${printable(text, { keepNewlines: true })}\n`);
  }

  error(message: string, code?: string): void {
    if (this.json) this.#write(`${JSON.stringify({ type: "error", ...(code === undefined ? {} : { code }), message })}\n`);
    this.#close();
    this.streams.stderr.write(`error: ${printable(message, { keepNewlines: true })}\n`);
  }

  /** Resolves once stdout has flushed (before process.exit). */
  flush(): Promise<void> {
    this.#close();
    return new Promise((resolve) => this.streams.stdout.write("", () => resolve()));
  }

  #close(): void {
    if (this.#inline === undefined) return;
    this.#inline = undefined;
    this.streams.stdout.write("\n");
  }

  #write(text: string): void {
    this.streams.stdout.write(text);
  }
}

/** Compact one-line JSON for payloads, cut at `max` characters. */
export function preview(value: unknown, max = 160): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function who(actor: { sub?: string; name?: string } | undefined): string {
  if (!actor) return "someone";
  if (actor.name && actor.sub && actor.name !== actor.sub) return `${actor.name} (${actor.sub})`;
  return actor.name ?? actor.sub ?? "someone";
}

export function nsLabel(namespace: readonly string[]): string {
  return namespace.length === 0 ? "" : `${namespace.join("/")} `;
}
