/**
 * This client's own awareness state in one presence room (a thread or a
 * queue): its clientID and clock, the renewal timer (the hub drops states not
 * renewed for 30 s, as y-protocols does), and the update to send.
 */
import { encodeAwarenessUpdate } from "./projections/presence.ts";

/** Presence states are renewed this often. */
export const PRESENCE_RENEW_MS = 15_000;

function randomClientId(): number {
  const bytes = new Uint32Array(1);
  globalThis.crypto.getRandomValues(bytes);
  return bytes[0] ?? Math.floor(Math.random() * 2 ** 32);
}

export class LocalPresence {
  readonly clientId = randomClientId();
  #clock = 0;
  #state: Record<string, unknown> | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #send: (update: string) => void;

  /** `send` publishes an update (errors are the caller's to swallow or report). */
  constructor(send: (update: string) => void) {
    this.#send = send;
  }

  get active(): boolean {
    return this.#state !== null;
  }

  /** The next update for `state`; starts or stops the renewal. */
  set(state: Record<string, unknown> | null): string {
    this.#state = state;
    this.#clock++;
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (state !== null) {
      this.#timer = setInterval(() => {
        this.#clock++;
        this.#send(this.#update());
      }, PRESENCE_RENEW_MS);
    }
    return this.#update();
  }

  /**
   * The update to re-send on a new connection. The hub removed our state when
   * the old socket closed, bumping its clock by one (removeAwarenessStates):
   * only a higher clock is taken again.
   */
  restore(): string | null {
    if (this.#state === null) return null;
    this.#clock += 2;
    return this.#update();
  }

  dispose(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #update(): string {
    return encodeAwarenessUpdate([{ clientId: this.clientId, clock: this.#clock, state: this.#state }]);
  }
}
