/**
 * Server process of the hub suites:  node --import tsx server-child.ts <hub|bare>
 *
 * hub:  a real Switchboard hub (createHub: in memory, 127.0.0.1, port 0) serving
 *       the demo assistants (no token delay) and `bench-stream`, whose node
 *       writes `count` custom events `{ name: "tick", payload: { i, t } }`,
 *       t = wall clock in ms with sub-ms resolution taken at the write.
 * bare: a plain `ws` WebSocketServer; `go` broadcasts the same envelope (the
 *       hub's own encodeEvent) to every open socket, either with a `ws.send`
 *       loop ("send") or one pre-built frame written to each socket ("frame").
 *
 * Both pace the producer the same way (pacer below): one event, then a yield
 * to I/O (setImmediate), or one event every intervalMs on a fixed schedule.
 */
import { readFileSync, rmSync } from "node:fs";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { Session } from "node:inspector/promises";
import { PerformanceObserver } from "node:perf_hooks";
import { writeHeapSnapshot } from "node:v8";
import { selfTimeByFile, selfTimes, totalTimes, type CpuProfile } from "../lib/cpuprofile.ts";
import * as wsModule from "ws";
import { WebSocketServer } from "ws";
import { END, START, StateGraph, lastValue, type Checkpointer } from "../../../engine/index.ts";
import { demoAssistants, silentLogger, startHub, type Assistant } from "../../../hub/index.ts";
import { encodeEvent, type ProtocolEvent } from "../../../hub/protocol/index.ts";
import { serveParent, wallNow } from "../lib/proc.ts";
import { internalsOf } from "../../../hub/hub.ts";

const mode = process.argv[2];
if (mode !== "hub" && mode !== "bare") throw new RangeError("usage: server-child.ts <hub|bare>");

const gc = globalThis.gc;

async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 4; i++) {
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await sleep(50);
  gc?.();
  return process.memoryUsage();
}

/**
 * Profiling aid: how many async_hooks init hooks are enabled in this process
 * (each makes every async resource — every socket write — call into JS).
 */
function asyncHookFields(): { init: number } {
  const binding = (process as unknown as { binding(name: string): { async_hook_fields: Uint32Array } }).binding("async_wrap");
  return { init: binding.async_hook_fields[0] ?? -1 };
}

/** Profiling aid (not used by the suites): self size and count per constructor name in a heap snapshot. */
const BY_OWNER = new Set(["(array)", "object:Array", "object:Object", "closure:", "(string)"]);

async function census(): Promise<Record<string, [number, number]>> {
  await settledMemory();
  const file = writeHeapSnapshot();
  const snap = JSON.parse(readFileSync(file, "utf8")) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
    nodes: number[];
    edges: number[];
    strings: string[];
  };
  rmSync(file, { force: true });
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const iType = fields.indexOf("type");
  const iName = fields.indexOf("name");
  const iSize = fields.indexOf("self_size");
  const iEdges = fields.indexOf("edge_count");
  const types = snap.snapshot.meta.node_types[0];
  const label = (i: number): string => {
    const type = types[snap.nodes[i + iType] as number];
    return type === "object" || type === "closure" ? `${type}:${snap.strings[snap.nodes[i + iName] as number]}` : `(${type})`;
  };
  // Internal arrays, arrays and plain objects are also named by their first owner and edge
  // (e.g. "(array) <- object:Map.table"), to see whose they are.
  const eFields = snap.snapshot.meta.edge_fields;
  const eWidth = eFields.length;
  const eType = eFields.indexOf("type");
  const eName = eFields.indexOf("name_or_index");
  const eTo = eFields.indexOf("to_node");
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const owner = new Map<number, string>();
  const ownerIndex = new Map<number, number>();
  let e = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const count = snap.nodes[i + iEdges] as number;
    for (let k = 0; k < count; k++, e += eWidth) {
      const to = snap.edges[e + eTo] as number;
      if (owner.has(to)) continue;
      const kind = edgeTypes[snap.edges[e + eType] as number];
      const raw = snap.edges[e + eName] as number;
      if (kind === "weak" || kind === "shortcut") continue;
      const edge = kind === "element" || kind === "hidden" ? `[${kind}]` : snap.strings[raw];
      owner.set(to, `${label(i)}.${edge}`);
      ownerIndex.set(to, i);
    }
  }
  const out: Record<string, [number, number]> = {};
  const add = (name: string, size: number): void => {
    const row = (out[name] ??= [0, 0]);
    row[0] += 1;
    row[1] += size;
  };
  for (let i = 0; i < snap.nodes.length; i += width) {
    const name = label(i);
    const size = snap.nodes[i + iSize] as number;
    add(name, size);
    if (!BY_OWNER.has(name)) continue;
    const first = owner.get(i) ?? "?";
    const parent = ownerIndex.get(i);
    // An array's elements store: name it by whoever holds the array too.
    const second = (first === "object:Array.elements" || first === "object:Object.properties") && parent !== undefined ? ` <- ${owner.get(parent) ?? "?"}` : "";
    add(`  ${name} <- ${first}${second}`, size);
  }
  return out;
}

/** Profiling aid (not used by the suites): garbage-collection pauses since the last ask, with ms by kind. */
const GC_KINDS: Record<number, string> = { 1: "minor", 2: "major", 4: "incremental", 8: "weakcb" };
let gcPauses = { count: 0, totalMs: 0, maxMs: 0, kinds: {} as Record<string, number> };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcPauses.count += 1;
    gcPauses.totalMs += entry.duration;
    gcPauses.maxMs = Math.max(gcPauses.maxMs, entry.duration);
    const kind = GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? "other";
    gcPauses.kinds[kind] = (gcPauses.kinds[kind] ?? 0) + entry.duration;
  }
}).observe({ entryTypes: ["gc"] });
function takeGcPauses(): typeof gcPauses {
  const taken = gcPauses;
  gcPauses = { count: 0, totalMs: 0, maxMs: 0, kinds: {} };
  return taken;
}

/** Profiling aid (not used by the suites): a CPU profile of whatever the server does between start and stop. */
let profiler: Session | undefined;
const ROOT = new URL("../../..", import.meta.url).pathname;
async function profStart(): Promise<boolean> {
  profiler = new Session();
  profiler.connect();
  await profiler.post("Profiler.enable");
  await profiler.post("Profiler.setSamplingInterval", { interval: 100 });
  await profiler.post("Profiler.start");
  return true;
}
async function profStop(): Promise<unknown> {
  const session = profiler;
  if (!session) throw new Error("not profiling");
  const { profile } = (await session.post("Profiler.stop")) as { profile: CpuProfile };
  session.disconnect();
  profiler = undefined;
  const rows = selfTimes(profile, ROOT);
  return {
    self: rows.slice(0, 30),
    files: selfTimeByFile(rows).slice(0, 20),
    hubTotal: totalTimes(profile, ROOT, (w) => w.startsWith("hub/") || w.startsWith("engine/")).slice(0, 30),
  };
}

/**
 * Waits after event i: a yield to I/O when intervalMs is 0 (unthrottled), else
 * until event i + 1 is due on a fixed schedule, so a late event does not push
 * the later ones back and both servers are offered the same rate.
 */
function pacer(intervalMs: number): (i: number) => Promise<unknown> {
  if (!(intervalMs > 0)) return () => nextTurn();
  const start = performance.now();
  return (i) => {
    const wait = start + (i + 1) * intervalMs - performance.now();
    return wait > 0 ? sleep(wait) : nextTurn();
  };
}

function benchStream(checkpointer: Checkpointer): Assistant {
  const graph = new StateGraph({ count: lastValue<number>(), intervalMs: lastValue<number>(), done: lastValue<boolean>() })
    .addNode("emit", async (state, runtime) => {
      const count = state.count ?? 0;
      const pace = pacer(state.intervalMs ?? 0);
      for (let i = 0; i < count && !runtime.signal.aborted; i++) {
        runtime.write({ name: "tick", payload: { i, t: wallNow() } });
        if (i + 1 < count) await pace(i);
      }
      return { done: true };
    })
    .addEdge(START, "emit")
    .addEdge("emit", END)
    .compile({ checkpointer, name: "bench-stream" });
  return { id: "bench-stream", description: "benchmark: timestamped custom events", graph };
}

const frameOf = (text: string): Buffer => {
  // ws's own framing, done once: a server frame is unmasked, so the bytes are the same for every socket.
  const frame = (wsModule as unknown as { Sender: { frame(data: Buffer, o: object): Buffer[] } }).Sender.frame;
  return Buffer.concat(frame(Buffer.from(text), { fin: true, rsv1: false, opcode: 1, mask: false, readOnly: false }));
};

if (mode === "hub") {
  const hub = await startHub({
    port: 0,
    host: "127.0.0.1",
    dataDir: null,
    logger: silentLogger,
    assistants: (cp) => [...demoAssistants({ tokenDelayMs: 0 })(cp), benchStream(cp)],
    // Idle sockets are the point of the memory suite; 10,000 loaded threads never happen here.
    limits: { idleTimeoutMs: 0 },
  });
  const command = async (threadId: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${hub.url}/threads/${threadId}/commands`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown>;
    if (json["type"] !== "success") throw new Error(`command failed: ${JSON.stringify(json)}`);
    return json["result"] as Record<string, unknown>;
  };
  serveParent(
    {
      async go(msg) {
        // The thread's previous run may still be finishing (its checkpoint) when the clients already have every event.
        const threadId = String(msg["threadId"]);
        for (let waited = 0; ; waited += 5) {
          const status = internalsOf(hub).logs.get(threadId)?.run.status;
          if (status !== "started" && status !== "running") break;
          if (waited > 30_000) throw new Error(`thread ${threadId}: the previous run is still ${status} after 30 s`);
          await sleep(5);
        }
        const input = msg["assistant"] === "review" ? { topic: "bench" } : { count: msg["count"], intervalMs: msg["intervalMs"] ?? 0 };
        const result = await command(threadId, { id: 1, method: "run.start", params: { assistant_id: msg["assistant"] ?? "bench-stream", input } });
        return { runId: result["run_id"] };
      },
      /** Seqs of the run's events on the given channels, as the server's log holds them. */
      seqs(msg) {
        const log = internalsOf(hub).logs.get(String(msg["threadId"]));
        if (!log) throw new Error(`no log for ${String(msg["threadId"])}`);
        const replay = log.replay({ channels: msg["channels"] as never });
        if (replay.kind !== "events") throw new Error("log replay gave a resync");
        return replay.entries.filter((e) => e.event.run_id === msg["runId"]).map((e) => e.seq);
      },
      runStatus(msg) {
        return internalsOf(hub).logs.get(String(msg["threadId"]))?.run ?? null;
      },
      memory: () => settledMemory(),
      census: () => census(),
      profStart: () => profStart(),
      profStop: () => profStop(),
      cpu: () => process.cpuUsage(),
      gc: () => takeGcPauses(),
      hooks: () => asyncHookFields(),
      stats: () => {
        const stats = hub.stats();
        return { connections: stats.connections, subscriptions: stats.subscriptions, metrics: stats };
      },
    },
    async () => ({ port: hub.port, pid: process.pid }),
  );
} else {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false, clientTracking: true });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  wss.on("connection", (ws) => ws.on("error", () => {}));
  const port = (wss.address() as { port: number }).port;
  let seq = 0;
  const broadcast = async (count: number, intervalMs: number, variant: "send" | "frame"): Promise<void> => {
    const runId = `run_bare_${seq}`;
    const pace = pacer(intervalMs);
    for (let i = 0; i < count; i++) {
      const t = wallNow();
      seq += 1;
      const event = {
        type: "event",
        thread_id: "bare",
        run_id: runId,
        run_seq: i + 2,
        method: "custom",
        params: { namespace: [], timestamp: Date.now(), node: "emit", data: { name: "tick", payload: { i, t } } },
        seq,
        event_id: String(seq),
      } as unknown as ProtocolEvent;
      const text = encodeEvent(event);
      if (variant === "send") {
        for (const ws of wss.clients) ws.send(text);
      } else {
        const frame = frameOf(text);
        for (const ws of wss.clients) (ws as unknown as { _socket: { write(b: Buffer): void } })._socket.write(frame);
      }
      if (i + 1 < count) await pace(i);
    }
  };
  serveParent(
    {
      go(msg) {
        void broadcast(Number(msg["count"]), Number(msg["intervalMs"] ?? 0), msg["variant"] === "frame" ? "frame" : "send");
        return { runId: null };
      },
      memory: () => settledMemory(),
      census: () => census(),
      profStart: () => profStart(),
      profStop: () => profStop(),
      cpu: () => process.cpuUsage(),
      gc: () => takeGcPauses(),
      hooks: () => asyncHookFields(),
      stats: () => ({ connections: wss.clients.size, subscriptions: 0 }),
    },
    async () => ({ port, pid: process.pid }),
  );
}
