/** The engines under test, by the name child processes are given. */
import { langgraph } from "./langgraph.ts";
import type { EngineUnderTest } from "./port.ts";
import { switchboard } from "./switchboard.ts";

export const ENGINES = { switchboard, langgraph } as const satisfies Record<string, EngineUnderTest>;
export type EngineName = keyof typeof ENGINES;

export function engineNamed(name: string): EngineUnderTest {
  if (name !== "switchboard" && name !== "langgraph") throw new RangeError(`unknown engine "${name}" (switchboard, langgraph)`);
  return ENGINES[name];
}
