/**
 * The checked example of docs/PROTOCOL.md: the seed's translate → review graph
 * (translate streams tokens, review interrupts, resume, finish) projected to
 * wire events must be exactly the sequence the document shows.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import {
  Command,
  END,
  MemorySaver,
  START,
  ScriptedChatModel,
  StateGraph,
  humanMessage,
  interrupt,
  lastValue,
  type StreamMode,
} from "../../../engine/index.ts";
import type { ProtocolEvent } from "../../../hub/protocol/index.ts";
import { createProjector } from "../../../hub/runs/projection.ts";

const MODES: StreamMode[] = ["values", "updates", "messages", "tasks", "custom", "tools"];

function translationGraph() {
  const llm = new ScriptedChatModel({ responses: [{ id: "msg-1", content: "Hola mundo" }], chunking: "word" });
  return new StateGraph({ source: lastValue<string>(), translation: lastValue<string>(), approved: lastValue<boolean>() })
    .addNode("translate", async (s) => {
      const reply = await llm.invoke([humanMessage(`Translate into Spanish: ${s.source}`)]);
      return { translation: reply.content as string };
    })
    .addNode("review", (s) => {
      const approved = interrupt<boolean>({
        kind: "translation_review",
        source: s.source,
        translation: s.translation,
        question: "Accept this translation?",
      });
      return { approved };
    })
    .addEdge(START, "translate")
    .addEdge("translate", "review")
    .addEdge("review", END)
    .compile({ checkpointer: new MemorySaver(), name: "translation" });
}

async function project(graph: ReturnType<typeof translationGraph>, input: unknown, runId: string): Promise<ProtocolEvent[]> {
  const projector = createProjector({ threadId: "thread-1", runId, now: () => 1_700_000_000_000, graphName: "translation" });
  const events: ProtocolEvent[] = [...projector.start()];
  let interrupted = false;
  for await (const part of graph.stream(input as never, { threadId: "thread-1", streamMode: MODES, subgraphs: true, runId })) {
    if (part.type === "updates" && "__interrupt__" in part.data) interrupted = true;
    events.push(...projector.push(part));
  }
  events.push(...projector.finish({ status: interrupted ? "interrupted" : "completed" }));
  return events;
}

/** Task and interrupt ids derive from checkpoint ids (time-based): name them by order of appearance. */
function normalize(events: ProtocolEvent[]): unknown[] {
  const names = new Map<string, string>();
  const name = (kind: string) => (id: string) => {
    if (!names.has(id)) names.set(id, `"<${kind}-${[...names.keys()].filter((k) => names.get(k)?.startsWith(`"<${kind}`)).length + 1}>"`);
    return names.get(id) as string;
  };
  const text = JSON.stringify(events)
    .replace(/"[0-9a-f]{32}"/g, name("interrupt"))
    .replace(/"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"/g, name("task"));
  return JSON.parse(text) as unknown[];
}

async function sequence(): Promise<unknown[]> {
  const graph = translationGraph();
  const first = await project(graph, { source: "Hello world" }, "run-1");
  const second = await project(graph, new Command({ resume: true }), "run-2");
  return normalize([...first, ...second]);
}

function documented(): unknown[] {
  const doc = readFileSync(fileURLToPath(new URL("../../../docs/PROTOCOL.md", import.meta.url)), "utf8");
  const block = /^```json protocol-sequence translation-review\n([\s\S]*?)^```$/m.exec(doc)?.[1];
  if (block === undefined) throw new Error("docs/PROTOCOL.md has no `json protocol-sequence translation-review` block");
  return JSON.parse(block) as unknown[];
}

it("the translation/review run projects to exactly the sequence in docs/PROTOCOL.md", async () => {
  const actual = await sequence();
  // To regenerate the documented block: WRITE_SEQUENCE=/tmp/seq.json npx vitest run <this file>
  const out = process.env["WRITE_SEQUENCE"];
  if (out) writeFileSync(out, JSON.stringify(actual, null, 1));
  expect(actual).toEqual(documented());
});
