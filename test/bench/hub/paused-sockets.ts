/**
 * Hub CPU while sockets that stopped reading follow one long message (issue
 * 14, item 4): a hub in this process, P paused sockets and one socket that
 * reads only lifecycle events, one run streaming N tokens. Prints the
 * process's CPU (process.cpuUsage, user + system) from run.start to the run's
 * end. A tool for the report, not part of `npm run bench`:
 *   npx tsx test/bench/hub/paused-sockets.ts [N=40000] [P=4] [mode=keep|drop] [wordBytes=3]
 * keep: the paused sockets are never dropped (sendQueueMaxMs 1 h, sendHardBytes 1 GiB), so the
 * number is what merging their deltas costs; drop: the default limits.
 */
import WebSocket from "ws";
import { DEFAULT_LIMITS, silentLogger, startHub } from "../../../hub/index.ts";
import { longText } from "../../support/long-text.ts";

const tokens = Number(process.argv[2] ?? 40_000);
const pausedCount = Number(process.argv[3] ?? 4);
const mode = process.argv[4] ?? "keep";
const word = "w".repeat(Number(process.argv[5] ?? 3));
const limits = mode === "keep" ? { sendQueueMaxMs: 3_600_000, sendHardBytes: 1024 ** 3, heartbeatMs: 3_600_000 } : {};
const hub = await startHub({ port: 0, dataDir: null, logger: silentLogger, assistants: (checkpointer) => [longText(checkpointer)], limits });
const url = `${hub.url.replace(/^http/, "ws")}/threads/t-paused/stream/events`;

function open(channels: string[]): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once("error", reject);
    ws.once("open", () => {
      ws.send(JSON.stringify({ id: 1, method: "subscription.subscribe", params: { channels } }));
      ws.once("message", () => resolve(ws));
    });
  });
}

const paused = await Promise.all(Array.from({ length: pausedCount }, () => open(["messages", "lifecycle"])));
for (const ws of paused) ws.pause();
const reader = await open(["lifecycle"]);
const ended = new Promise<string>((resolve) => {
  reader.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as { method?: string; params?: { namespace: string[]; data: { event?: string } } };
    const event = frame.method === "lifecycle" && frame.params?.namespace.length === 0 ? frame.params.data.event : undefined;
    if (event === "completed" || event === "failed") resolve(event);
  });
});
const cpu0 = process.cpuUsage();
const t0 = performance.now();
reader.send(JSON.stringify({ id: 2, method: "run.start", params: { assistant_id: "long-text", input: { tokens, word } } }));
const status = await ended;
const cpu = process.cpuUsage(cpu0);
const wall = performance.now() - t0;
const stats = hub.stats();
console.log(
  `${tokens} tokens of ${word.length} bytes, ${pausedCount} paused sockets (${mode}; sendQueueMaxMs ${limits.sendQueueMaxMs ?? DEFAULT_LIMITS.sendQueueMaxMs}): run ${status}, ` +
    `CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s (user ${(cpu.user / 1e6).toFixed(2)}, system ${(cpu.system / 1e6).toFixed(2)}), wall ${(wall / 1e3).toFixed(2)} s; ` +
    `coalesced ${stats.deltasCoalesced}, dropped ${stats.slowConsumersTerminated}, still queued ${stats.sendQueuedBytes} bytes`,
);
for (const ws of [...paused, reader]) ws.terminate();
await hub.close();
