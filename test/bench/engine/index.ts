/** The engine suites (Switchboard vs LangGraph.js), in the order they run and appear in the table. */
import type { SuiteGroup } from "../suite.ts";
import { chainSuite } from "./chain.ts";
import { fanoutSuite } from "./fanout.ts";
import { interruptsSuite } from "./interrupts.ts";
import { memorySuite } from "./memory.ts";
import { messagesSuite } from "./messages.ts";

export const engineGroup: SuiteGroup = {
  name: "engine",
  title: "Engine: Switchboard vs LangGraph.js",
  peer: "LangGraph.js",
  packages: ["@langchain/langgraph", "@langchain/core", "@langchain/langgraph-checkpoint", "@langchain/langgraph-checkpoint-sqlite"],
  suites: [chainSuite, fanoutSuite, messagesSuite, interruptsSuite, memorySuite],
};
