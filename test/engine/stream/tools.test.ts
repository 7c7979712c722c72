import { expect, it } from "vitest";
import {
  END,
  START,
  ScriptedChatModel,
  StateGraph,
  humanMessage,
  messages,
  tool,
  toolNode,
  toolsCondition,
  type ToolEventPayload,
} from "../../../engine/index.ts";
import { collect } from "./helpers.ts";

it("tools report started / output / finished and errors through the tools stream", async () => {
  const weather = tool((args: { city: string }) => `${args.city}: sunny`, {
    name: "get_weather",
    description: "Weather of a city",
    schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  });
  const broken = tool(
    () => {
      throw new Error("backend down");
    },
    { name: "broken", description: "Always fails", schema: { type: "object", properties: {} } },
  );
  const model = new ScriptedChatModel({
    responses: [
      {
        toolCalls: [
          { id: "c1", name: "get_weather", args: { city: "Beijing" } },
          { id: "c2", name: "broken", args: {} },
        ],
      },
      "done",
    ],
  });
  const bound = model.bindTools([weather, broken]);
  const graph = new StateGraph({ messages: messages() })
    .addNode("agent", async (s) => ({ messages: [await bound.invoke(s.messages)] }))
    .addNode("tools", toolNode([weather, broken]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile();
  const parts = await collect(graph.stream({ messages: [humanMessage("go")] }, { streamMode: "tools" }));
  const events = parts.map((p) => p.data as ToolEventPayload);
  const of = (id: string) => events.filter((e) => e.toolCallId === id).map((e) => e.event);
  expect(of("c1")).toEqual(["tool-started", "tool-finished"]);
  expect(of("c2")).toEqual(["tool-started", "tool-error"]);
  expect(events.find((e) => e.event === "tool-finished")).toMatchObject({ name: "get_weather", output: "Beijing: sunny" });
  expect(events.find((e) => e.event === "tool-error")).toMatchObject({ name: "broken" });
  expect(JSON.stringify(events.find((e) => e.event === "tool-error"))).toMatch(/backend down/);
  expect(events.find((e) => e.event === "tool-started")).toMatchObject({ input: { city: "Beijing" } });
});
