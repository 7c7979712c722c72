/**
 * Fixtures for the SDK's integration tests: the real hub (startHub on port
 * 0, in memory) serving the demo assistants plus `research` — a graph with a
 * streamed model call that asks for a tool, the tool, and a subgraph that
 * streams a report and interrupts — and clients that record their sockets.
 */
import { vi } from "vitest";
import {
  END,
  START,
  ScriptedChatModel,
  StateGraph,
  contentText,
  humanMessage,
  interrupt,
  lastValue,
  messages,
  toolNode,
  type Checkpointer,
  type Tool,
} from "../../engine/index.ts";
import { HubClient, type ClientSocket, type HubClientOptions, type SocketFactory } from "../../client/index.ts";
import { nodeSocketFactory } from "../../client/node-socket.ts";
import type { Assistant, Hub, HubConfig } from "../../hub/index.ts";
import { onCleanup } from "./cleanup.ts";

export const WAIT = { timeout: 15_000, interval: 10 };
export const REPORT = "Sunny all week with a light breeze";


export function researchAssistant(checkpointer: Checkpointer): Assistant {
  const agentModel = new ScriptedChatModel({
    responses: [{ content: "Let me search", toolCalls: [{ id: "call_1", name: "search", args: { q: "weather" } }] }],
    chunking: "word",
    loop: true,
  });
  const writer = new ScriptedChatModel({ responses: [REPORT], chunking: "word", loop: true, delayMs: 1 });
  const search: Tool = {
    name: "search",
    description: "Searches the forecast.",
    schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    invoke: () => ({ forecast: "sun" }),
  };
  const child = new StateGraph({ report: lastValue<string>(), approved: lastValue<boolean>() })
    .addNode("write", async (_state, runtime) => {
      const reply = await writer.invoke([humanMessage("Write the report")], { signal: runtime.signal });
      return { report: contentText(reply.content) };
    })
    .addNode("approve", () => ({ approved: interrupt<boolean>({ kind: "approve", question: "Publish the report?" }) }))
    .addEdge(START, "write")
    .addEdge("write", "approve")
    .addEdge("approve", END)
    .compile({ name: "research" });
  const graph = new StateGraph({ messages: messages(), report: lastValue<string>(), approved: lastValue<boolean>() })
    .addNode("agent", async (state, runtime) => ({ messages: [await agentModel.invoke(state.messages, { signal: runtime.signal })] }))
    .addNode("tools", toolNode([search]))
    .addNode("research", child)
    .addEdge(START, "agent")
    .addEdge("agent", "tools")
    .addEdge("tools", "research")
    .addEdge("research", END)
    .compile({ checkpointer, name: "research-agent" });
  return { id: "research", description: "Tokens, a tool call, a subgraph and an interrupt.", graph };
}

export type RunningHub = Hub & { port: number; url: string };

/** The hub, closed after the test once every client's connection is gone from it. */
export async function startTestHub(config: HubConfig & { tokenDelayMs?: number } = {}): Promise<RunningHub> {
  const hubModule = await import("../../hub/index.ts");
  const { tokenDelayMs, ...rest } = config;
  const hub = await hubModule.startHub({
    port: 0,
    dataDir: null,
    logger: hubModule.silentLogger,
    assistants: (cp) => [...hubModule.demoAssistants({ tokenDelayMs: tokenDelayMs ?? 0 })(cp), researchAssistant(cp)],
    ...rest,
  });
  onCleanup(() => hub.close());
  // Runs after the clients' cleanups (registered later, run first).
  onCleanup(() =>
    vi.waitFor(() => {
      const { connections, subscriptions } = hub.stats();
      if (connections !== 0 || subscriptions !== 0) throw new Error(`${connections} connections and ${subscriptions} subscriptions left`);
    }, WAIT),
  );
  return hub;
}

/** A client of `hub` whose sockets are kept, so a test can cut them. */
export function recordingClient(hub: RunningHub, options: Partial<HubClientOptions> = {}): { client: HubClient; sockets: ClientSocket[] } {
  const sockets: ClientSocket[] = [];
  const inner = nodeSocketFactory();
  const factory: SocketFactory = Object.assign(
    async (...args: Parameters<SocketFactory>) => {
      const socket = await inner(...args);
      sockets.push(socket);
      return socket;
    },
    { supportsHeaders: true },
  );
  const client = new HubClient({ url: hub.url, socketFactory: factory, reconnect: { initialDelayMs: 5, maxDelayMs: 50 }, ...options });
  onCleanup(() => client.close());
  return { client, sockets };
}
