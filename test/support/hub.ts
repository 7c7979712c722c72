/**
 * Fixtures for hub integration tests: a hub on port 0 that afterEach closes,
 * and a small WebSocket client that schema-checks every frame it receives.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, vi } from "vitest";
import WebSocket from "ws";
import { silentLogger, startHub, type Hub, type HubConfig } from "../../hub/index.ts";
import {
  decodeServerMessage,
  type CommandMethod,
  type ProtocolEvent,
  type ProtocolResponse,
  type ServerMessage,
} from "../../hub/protocol/index.ts";
import { onCleanup } from "./cleanup.ts";

type RunningHub = Hub & { port: number; url: string };

/** Waits on events and responses; generous because runs stream real tokens. */
export const WAIT = { timeout: 15_000, interval: 10 };

export { onCleanup };

export async function testHub(config: HubConfig = {}): Promise<RunningHub> {
  const hub = await startHub({ port: 0, dataDir: null, logger: silentLogger, demoTokenDelayMs: 0, ...config });
  onCleanup(async () => {
    await hub.close();
    // Nothing may outlive the hub: sockets, subscriptions, SSE streams.
    const { connections, subscriptions, sseStreams } = hub.stats();
    expect({ connections, subscriptions, sseStreams }).toEqual({ connections: 0, subscriptions: 0, sseStreams: 0 });
  });
  return hub;
}

export function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "switchboard-hub-"));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The hub's storages, for tests that must hold on each checkpointer
 * (describe.each): in memory, and SQLite in a temp data dir. Call `config()`
 * inside a test. A Postgres entry belongs here too.
 */
export const HUB_STORAGES: ReadonlyArray<{ name: string; config: () => HubConfig }> = [
  { name: "MemorySaver", config: () => ({ dataDir: null }) },
  { name: "SqliteSaver", config: () => ({ dataDir: tempDataDir() }) },
];

export const wsUrl = (hub: { url: string }, path: string): string => hub.url.replace(/^http/, "ws") + path;

export class TestSocket {
  readonly ws: WebSocket;
  readonly messages: ServerMessage[] = [];
  readonly invalid: string[] = [];
  closeCode: number | undefined;
  #nextId = 100;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on("message", (data, isBinary) => {
      if (isBinary) this.invalid.push("binary frame");
      const decoded = decodeServerMessage(data.toString());
      if (decoded.ok) this.messages.push(decoded.message);
      else this.invalid.push(`${decoded.error.message}: ${data.toString().slice(0, 200)}`);
    });
    ws.on("close", (code) => {
      this.closeCode = code;
    });
    ws.on("error", () => {});
  }

  static async open(url: string, options: { headers?: Record<string, string> } = {}): Promise<TestSocket> {
    const ws = new WebSocket(url, options.headers ? { headers: options.headers } : {});
    const socket = new TestSocket(ws);
    onCleanup(() => socket.close());
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return socket;
  }

  get events(): ProtocolEvent[] {
    return this.messages.filter((m): m is ProtocolEvent => m.type === "event");
  }

  get responses(): ProtocolResponse[] {
    return this.messages.filter((m): m is ProtocolResponse => m.type !== "event");
  }

  sendRaw(data: string | Buffer, binary = false): void {
    this.ws.send(data, { binary });
  }

  /** Sends a command and waits for the response with its id. */
  async request(method: CommandMethod, params: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<ProtocolResponse> {
    const id = this.#nextId++;
    this.ws.send(JSON.stringify({ id, method, params, ...extra }));
    return this.responseTo(id);
  }

  async responseTo(id: number | null, nth = 0): Promise<ProtocolResponse> {
    return vi.waitFor(() => {
      const found = this.responses.filter((r) => r.id === id)[nth];
      if (!found) throw new Error(`no response to ${id} yet`);
      return found;
    }, WAIT);
  }

  /** Subscribes and expects success. */
  async subscribe(params: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
    const response = await this.request("subscription.subscribe", params, extra);
    if (response.type !== "success") throw new Error(`subscribe failed: ${response.message}`);
    return String(response.result["subscription_id"]);
  }

  async waitForEvent(predicate: (e: ProtocolEvent) => boolean, what = "event"): Promise<ProtocolEvent> {
    return vi.waitFor(() => {
      const found = this.events.find(predicate);
      if (!found) throw new Error(`no ${what} yet`);
      return found;
    }, WAIT);
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      this.ws.once("close", () => resolve());
      // A paused socket would never read the close handshake.
      if (this.ws.readyState === WebSocket.CONNECTING || this.ws.isPaused) this.ws.terminate();
      else this.ws.close();
    });
  }

  /** Every frame decoded with the real schema. */
  expectValidFrames(): void {
    expect(this.invalid).toEqual([]);
  }
}

export const isRootLifecycle = (status: string) => (e: ProtocolEvent): boolean =>
  e.method === "lifecycle" && e.params.namespace.length === 0 && e.params.data.event === status;

export const interruptIdsOf = (events: ProtocolEvent[]): string[] =>
  events.flatMap((e) => (e.method === "input.requested" ? [e.params.data.interrupt_id] : []));

export const textOf = (events: ProtocolEvent[]): string =>
  events
    .flatMap((e) => (e.method === "messages" && e.params.data.event === "content-block-delta" && e.params.data.delta.type === "text-delta" ? [e.params.data.delta.text] : []))
    .join("");

export const ALL_CHANNELS = ["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom"];
