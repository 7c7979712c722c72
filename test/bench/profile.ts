/**
 * CPU-profiles one benchmark scenario in-process and prints where the time
 * goes: top self-time functions (file:line in the TypeScript source) and
 * self time per file. Not part of `npm run bench`; a tool for the report.
 *
 *   npx tsx test/bench/profile.ts <chain|chain-memory|fanout|interrupt|messages|model-stream> [--engine switchboard|langgraph]
 *        [--seconds 5] [--top 25] [--out FILE.cpuprofile]
 */
import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { dirname, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { engineNamed } from "./engine/engines.ts";
import type { EngineUnderTest } from "./engine/port.ts";
import { selfTimeByFile, selfTimes, totalTimes, type CpuProfile } from "./lib/cpuprofile.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const { values: args, positionals } = parseArgs({
  options: {
    engine: { type: "string", default: "switchboard" },
    seconds: { type: "string", default: "5" },
    top: { type: "string", default: "25" },
    out: { type: "string" },
  },
  allowPositionals: true,
});
const scenario = positionals[0] ?? "chain";
const engine = await engineNamed(args.engine);
const seconds = Number(args.seconds);
const top = Number(args.top);

/** Returns one unit of work for the scenario (repeated until the time is up). */
async function workload(e: EngineUnderTest, name: string): Promise<(i: number) => Promise<unknown>> {
  switch (name) {
    case "chain":
      return e.chain(10, "none");
    case "chain-memory":
      return e.chain(10, "memory");
    case "fanout":
      return e.fanout(100, "nodes");
    case "messages":
      return e.streamMessages(10_000);
    case "model-stream":
      return e.streamModel(10_000);
    case "interrupt": {
      const harness = await e.interrupts({ kind: "memory" });
      if (!harness) throw new Error(`${e.label} has no in-memory saver`);
      return async (i) => {
        await harness.pause(`t${i}`);
        await harness.resume(`t${i}`);
      };
    }
    default:
      throw new RangeError(`unknown scenario "${name}" (chain, chain-memory, fanout, interrupt, messages, model-stream)`);
  }
}

const op = await workload(engine, scenario);
// Warm up first so the profile shows steady state, not compilation.
const warmEnd = performance.now() + 1000;
let i = 0;
while (performance.now() < warmEnd) await op(i++);

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
await session.post("Profiler.start");
const start = performance.now();
let ops = 0;
while (performance.now() - start < seconds * 1000) {
  await op(i++);
  ops += 1;
}
const elapsed = performance.now() - start;
const { profile } = (await session.post("Profiler.stop")) as { profile: CpuProfile };
session.disconnect();
if (args.out) await writeFile(args.out, JSON.stringify(profile));

const rows = selfTimes(profile, ROOT);
console.log(`${engine.label} ${scenario}: ${ops} ops in ${(elapsed / 1000).toFixed(1)} s, ${((elapsed / ops) * 1000).toFixed(1)} µs per op`);
console.log(`\ntop ${top} self time:`);
for (const r of rows.slice(0, top)) {
  console.log(`${(r.share * 100).toFixed(1).padStart(5)}%  ${((r.ms / ops) * 1000).toFixed(1).padStart(8)} µs/op  ${r.fn}  ${r.where}`);
}
console.log("\nself time by file:");
for (const f of selfTimeByFile(rows).slice(0, 20)) {
  console.log(`${(f.share * 100).toFixed(1).padStart(5)}%  ${((f.ms / ops) * 1000).toFixed(1).padStart(8)} µs/op  ${f.file}`);
}
console.log(`\ntop ${top} total (inclusive) time, engine/ functions:`);
for (const r of totalTimes(profile, ROOT, (where) => where.startsWith("engine/")).slice(0, top)) {
  console.log(`${(r.share * 100).toFixed(1).padStart(5)}%  ${((r.ms / ops) * 1000).toFixed(1).padStart(8)} µs/op  ${r.fn}  ${r.where}`);
}
