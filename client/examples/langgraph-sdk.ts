/**
 * The official LangGraph SDK against a Switchboard hub, unchanged: start a
 * `review` run, watch it pause, answer, read the final state.
 * `npx tsx client/examples/langgraph-sdk.ts [url]`
 */
import { Client } from "@langchain/langgraph-sdk";
import WebSocket from "ws";

export async function reviewWithLangGraphSdk(url: string): Promise<Record<string, unknown>> {
  const client = new Client({ apiUrl: url, apiKey: null });
  const thread = client.threads.stream(crypto.randomUUID(), {
    assistantId: "review",
    transport: "websocket", // or "sse"
    // Node 20 has no global WebSocket: hand the SDK the `ws` one.
    webSocketFactory: (wsUrl: string) => new WebSocket(wsUrl) as unknown as globalThis.WebSocket,
  });
  // Resolves when the root graph reports `completed` (the resumed run's end).
  const completed = new Promise<void>((resolve) =>
    thread.onEvent((event) => {
      if (event.method === "lifecycle" && event.params.namespace.length === 0 && (event.params.data as { event?: string }).event === "completed") resolve();
    }),
  );
  await thread.run.start({ input: { topic: "the release" } });
  await thread.output; // settles when the run pauses for review
  const [question] = thread.interrupts;
  if (!question) throw new Error("expected the review question");
  await thread.input.respond({ namespace: [], interrupt_id: question.interruptId, response: "ship it" });
  await completed;
  const state = await thread.state.get({ namespace: [] });
  thread.close();
  return state.values as Record<string, unknown>;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await reviewWithLangGraphSdk(process.argv[2] ?? "http://localhost:8787"));
}
