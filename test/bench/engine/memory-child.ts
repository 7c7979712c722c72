/**
 * Child process of the memory suite: holds `threads` threads paused at an
 * interrupt in one engine's in-memory saver and prints the heap they cost.
 * Run with --expose-gc:  node --expose-gc --import tsx memory-child.ts <engine> <threads> <budgetMs> [warmupThreads]
 */
import { performance } from "node:perf_hooks";
import { engineNamed } from "./engines.ts";

const [engineArg = "", threadsArg = "", budgetArg = "", warmupArg = "200"] = process.argv.slice(2);
const engine = await engineNamed(engineArg);
const threads = Number(threadsArg);
const budgetMs = Number(budgetArg);
const warmup = Number(warmupArg);
if (!(threads > 0 && budgetMs > 0 && warmup >= 0)) throw new RangeError("usage: memory-child.ts <engine> <threads> <budgetMs> [warmupThreads]");
const gc = globalThis.gc;
if (!gc) throw new Error("run with --expose-gc");

async function settledHeap(): Promise<number> {
  // Several rounds: finalizers and weak references need more than one pass.
  for (let i = 0; i < 4; i++) {
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

// Warm up on a saver that is dropped: compiled code, module caches and lazy
// singletons then exist before the baseline and are not charged to threads.
const warm = await engine.interrupts({ kind: "memory" });
if (!warm) throw new Error(`${engine.label} has no in-memory saver`);
for (let i = 0; i < warmup; i++) await warm.pause(`warm-${i}`);
await warm.close();

const harness = await engine.interrupts({ kind: "memory" });
if (!harness) throw new Error(`${engine.label} has no in-memory saver`);
const before = await settledHeap();
const deadline = performance.now() + budgetMs;
let held = 0;
while (held < threads) {
  await harness.pause(`thread-${held}`);
  held += 1;
  if (performance.now() >= deadline) break;
}
const after = await settledHeap();
// The harness (and with it every paused thread) must still be reachable here.
await harness.close();
console.log(JSON.stringify({ engine: engine.label, threads: held, before, after, bytesPerThread: (after - before) / held }));
