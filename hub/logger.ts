/**
 * The hub's logger port: where the hub reports what it does, and the loggers
 * it ships. Each call is a message for people plus, optionally, fields for
 * machines (`event`, `run_id`, `thread_id`, `status`, …).
 *
 * `jsonLogger` (what `npm start` uses) writes one JSON object per line with
 * pino: chosen for being the well-kept structured logger of the Node world —
 * newline-delimited JSON that log shippers read as is, levels,
 * low overhead and path redaction built in. Writes are synchronous: the hub
 * logs per run and per refusal (not per event), and a line written just before
 * `process.exit` must not be lost or land after the ready line. What is
 * logged is chosen here and at each call site: ids, statuses, counts and
 * reasons — never a token, a header, a run's input, an answer or any payload;
 * `redact` censors those keys as a second line of defence.
 */
import { pino, type DestinationStream } from "pino";

/** Ids, statuses, counts and reasons only: never tokens or payloads (see REDACTED_KEYS). */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export const consoleLogger: Logger = {
  info: (m) => console.log(`[switchboard] ${m}`),
  warn: (m) => console.warn(`[switchboard] ${m}`),
  error: (m) => console.error(`[switchboard] ${m}`),
};

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** Keys never written, whoever passes them. */
export const REDACTED_KEYS = ["token", "access_token", "authorization", "x-api-key", "cookie", "secret", "password", "payload", "input", "response", "answer", "values", "update"] as const;

/** Structured logs: one JSON object per line (`level`, `time`, `msg`, the fields) to `destination` (default stdout). */
export function jsonLogger(options: { destination?: DestinationStream; level?: "info" | "warn" | "error" } = {}): Logger {
  const log = pino(
    {
      base: { service: "switchboard" },
      level: options.level ?? "info",
      redact: { paths: REDACTED_KEYS.flatMap((k) => [`["${k}"]`, `*["${k}"]`]), censor: "[redacted]" },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
  return {
    info: (message, fields) => log.info(fields ?? {}, message),
    warn: (message, fields) => log.warn(fields ?? {}, message),
    error: (message, fields) => log.error(fields ?? {}, message),
  };
}
