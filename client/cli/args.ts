/**
 * Argument parsing for the CLI on `node:util` parseArgs (strict: unknown
 * flags are usage errors), the exit codes, and the shared hub options.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** Exit codes: data, documented in `switchboard --help` and client/cli/README.md. */
export const EXIT = {
  ok: 0,
  /** An error: unreachable hub, refused command, failed run. */
  error: 1,
  /** Bad usage: unknown command or flag, malformed value. */
  usage: 2,
  /** The run ended waiting for answers to its interrupts. */
  interrupted: 3,
  /** Ctrl-C. */
  sigint: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Wrong usage: printed with the command's usage line, exit 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** A failure with a message meant for the user (no stack), exit 1 unless said otherwise. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.error,
  ) {
    super(message);
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;
/** What `parse` returns, named so the declaration emit can write it down. */
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>>;

/** `--url`, `--token`, `--json`: every command that talks to a hub. */
export const HUB_OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  json: { type: "boolean" },
} as const satisfies Options;

export const HUB_OPTIONS_HELP = `
Hub options:
  --url <url>      the hub (default $SWITCHBOARD_URL or http://localhost:8787)
  --token <jwt>    bearer token (default $SWITCHBOARD_TOKEN; mint one with \`switchboard token\`)
  --json           one JSON object per line on stdout, for scripts
  -h, --help       this help

A lost connection is retried for $SWITCHBOARD_RECONNECT_MS (default 10000 ms), then the command stops.`;

/** Strict parse: unknown flags, missing values and extra positionals are UsageErrors. */
export function parse<const O extends Options>(argv: readonly string[], options: O, maxPositionals: number): Parsed<O> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.replace(/\. To specify a positional.*$/s, "") : String(error));
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[maxPositionals])}`);
  }
  return parsed;
}

export interface HubTarget {
  url: string;
  token: string | undefined;
  json: boolean;
  /** How long a lost connection is retried before the command stops ($SWITCHBOARD_RECONNECT_MS). */
  reconnectMs: number;
}

/** Long enough to ride out a hub restart. */
export const DEFAULT_RECONNECT_MS = 10_000;

export function hubTarget(values: { url?: string | undefined; token?: string | undefined; json?: boolean | undefined }, env: NodeJS.ProcessEnv): HubTarget {
  const url = values.url ?? (env["SWITCHBOARD_URL"] || "http://localhost:8787");
  if (!URL.canParse(url)) throw new UsageError(`--url must be a URL, got ${JSON.stringify(url)}`);
  const token = values.token ?? env["SWITCHBOARD_TOKEN"];
  const reconnect = env["SWITCHBOARD_RECONNECT_MS"] || undefined;
  const reconnectMs = reconnect === undefined ? DEFAULT_RECONNECT_MS : Number(reconnect);
  if (!Number.isSafeInteger(reconnectMs) || reconnectMs < 0) throw new UsageError(`SWITCHBOARD_RECONNECT_MS must be a whole number of milliseconds, got ${JSON.stringify(reconnect)}`);
  return { url, token: token === "" ? undefined : token, json: values.json === true, reconnectMs };
}

/** Parses a JSON flag value; `what` names it in the error. */
export function parseJsonFlag(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

export type ParsedAnswer = { ok: true; value: unknown } | { ok: false; message: string };

/** Starts like a JSON value: an object, array, string, number, true/false/null. */
const JSON_START = /^(?:[{["]|-?\d|(?:true|false|null)\b)/;

/**
 * An answer typed by a reviewer. An answer resumes the run irreversibly, so
 * nothing is guessed: what looks like JSON must parse (`{approve: true` is
 * refused, not sent as a string), and plain text needs quotes (`"looks good"`)
 * or `--text` (`--text looks good`, taken verbatim).
 */
export function parseAnswer(text: string, usage = "answer <n>"): ParsedAnswer {
  const trimmed = text.trim();
  const asText = /^--text(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (asText) {
    const value = asText[1]?.trim() ?? "";
    return value === "" ? { ok: false, message: `${usage} --text <text>: the text is missing` } : { ok: true, value };
  }
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch (error) {
    if (JSON_START.test(trimmed)) {
      const why = error instanceof Error ? error.message : String(error);
      return { ok: false, message: `answer is not valid JSON (${why}): fix it, or send it as text with --text` };
    }
    return { ok: false, message: `plain text needs quotes: ${usage} ${JSON.stringify(trimmed)}, or ${usage} --text ${trimmed}` };
  }
}
