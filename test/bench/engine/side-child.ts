/**
 * One engine's process for the engine suites:  node --import tsx side-child.ts <switchboard|langgraph>
 * Loads only that engine and answers `measure { key, run, quick, params }`
 * with the measurement's values, its log lines and the process warnings it caused.
 */
import { serveParent } from "../lib/proc.ts";
import { countWarnings, takeWarnings } from "../lib/warnings.ts";
import { chainSide } from "./chain.ts";
import type { SideMeasure } from "./common.ts";
import { engineNamed } from "./engines.ts";
import { fanoutSide } from "./fanout.ts";
import { interruptsSide } from "./interrupts.ts";
import { messagesAwaitingSide, messagesSide } from "./messages.ts";

const MEASURES: Record<string, SideMeasure> = {
  chain: chainSide,
  fanout: fanoutSide,
  messages: messagesSide,
  "messages-awaiting": messagesAwaitingSide,
  interrupts: interruptsSide,
};

const engine = await engineNamed(process.argv[2] ?? "");
countWarnings();

serveParent(
  {
    async measure(msg) {
      const key = String(msg["key"]);
      const measure = MEASURES[key];
      if (!measure) throw new RangeError(`unknown measurement "${key}" (${Object.keys(MEASURES).join(", ")})`);
      const logs: string[] = [];
      const values = await measure(engine, {
        run: Number(msg["run"]),
        quick: msg["quick"] === true,
        params: (msg["params"] ?? {}) as Record<string, unknown>,
        log: (line) => logs.push(line),
      });
      // Warnings are emitted on process.nextTick: let this measurement's through first.
      await new Promise((resolve) => setImmediate(resolve));
      return { values, logs, warnings: takeWarnings() };
    },
  },
  async () => ({ engine: engine.label }),
);
