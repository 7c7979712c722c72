/**
 * The engines under test, by the name child processes are given. Each is
 * imported only when asked for, so a process measuring one engine never loads
 * the other (LangGraph.js enables AsyncLocalStorage, Switchboard installs
 * promise hooks; either would tax the other's every promise).
 */
import type { EngineUnderTest } from "./port.ts";

export const ENGINE_NAMES = ["switchboard", "langgraph"] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export async function engineNamed(name: string): Promise<EngineUnderTest> {
  if (name === "switchboard") return (await import("./switchboard.ts")).switchboard;
  if (name === "langgraph") return (await import("./langgraph.ts")).langgraph;
  throw new RangeError(`unknown engine "${name}" (${ENGINE_NAMES.join(", ")})`);
}
