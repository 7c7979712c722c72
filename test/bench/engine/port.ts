/**
 * The port each engine under test implements: the benchmark graphs, built with
 * that library's own API. Suites measure through this interface only, so both
 * sides run exactly the same scenario and the same loop.
 */

/** Characters of one streamed response, counted as they reached the consumer. */
export interface TokenCount {
  /** Chunks with non-empty text (the scripted models stream one character per chunk). */
  tokens: number;
  /** Total characters of text received. */
  chars: number;
}

/** One thread's interrupt → resume round trip, on one checkpointer. */
export interface InterruptHarness {
  /** Starts a run on `threadId`; resolves once it is paused at interrupt(). */
  pause(threadId: string): Promise<void>;
  /** Answers the pending interrupt; resolves once the run has finished. */
  resume(threadId: string): Promise<void>;
  close(): Promise<void>;
}

export type InterruptStore = { kind: "memory" } | { kind: "sqlite"; file: string };

export interface EngineUnderTest {
  readonly label: string;
  /**
   * A chain of `length` trivial nodes, each adding 1 to a counter. Returns one
   * invoke (resolving to the final counter); with a saver, each call uses a new thread.
   */
  chain(length: number, saver: "none" | "memory"): (i: number) => Promise<number>;
  /**
   * fan → `width` parallel tasks → join, the tasks appending to a list
   * reducer; "nodes" uses static nodes and a join edge, "send" one node and Send.
   * Returns one invoke, resolving to the length of the joined list.
   */
  fanout(width: number, via: "nodes" | "send"): (i: number) => Promise<number>;
  /** One node whose scripted model streams `tokens` tokens, consumed through streamMode "messages". */
  streamMessages(tokens: number): () => Promise<TokenCount>;
  /** The same model's own stream consumed directly, outside any graph. */
  streamModel(tokens: number): () => Promise<TokenCount>;
  /** undefined when this library has no saver for the store. */
  interrupts(store: InterruptStore): Promise<InterruptHarness | undefined>;
}

/** The scripted reply: `tokens` characters, one per chunk. */
export function scriptedText(tokens: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz";
  let text = "";
  for (let i = 0; i < tokens; i++) text += alphabet[i % alphabet.length];
  return text;
}

export class BenchCheckError extends Error {
  override readonly name = "BenchCheckError";
}

/** Fails the benchmark when a scenario did not do what it claims. */
export function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new BenchCheckError(message);
}
