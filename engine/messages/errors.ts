/**
 * Named errors of the messages module, each with a stable `code` so the
 * engine and the hub can map them without parsing text.
 */

export const MESSAGE_ERROR_CODES = {
  INVALID_MESSAGE: "INVALID_MESSAGE",
  REMOVE_UNKNOWN_ID: "REMOVE_UNKNOWN_ID",
} as const;

export type MessageErrorCode = (typeof MESSAGE_ERROR_CODES)[keyof typeof MESSAGE_ERROR_CODES];

/** A value given as a message is not one (wrong type, field, or shorthand). */
export class InvalidMessageError extends Error {
  readonly code = MESSAGE_ERROR_CODES.INVALID_MESSAGE;
  /** Where in the update the problem is, e.g. `[2].tool_calls[0].args`. */
  readonly path: string;
  constructor(path: string, problem: string) {
    super(`invalid message at ${path || "(root)"}: ${problem}`);
    this.name = "InvalidMessageError";
    this.path = path;
  }
}

/** A RemoveMessage named an id that is not in the list. */
export class RemoveMessageError extends Error {
  readonly code = MESSAGE_ERROR_CODES.REMOVE_UNKNOWN_ID;
  readonly id: string;
  constructor(id: string) {
    super(`cannot remove message "${id}": no message with that id exists`);
    this.name = "RemoveMessageError";
    this.id = id;
  }
}
