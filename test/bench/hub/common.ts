/** What the hub suites share: starting the server and client processes, and building rows. */
import { fileURLToPath } from "node:url";
import { summarize } from "../lib/measure.ts";
import { cell, na, type Cell, type Row, type Target, type Unit } from "../lib/report.ts";
import { BenchChild } from "../lib/proc.ts";

export const SERVER = fileURLToPath(new URL("./server-child.ts", import.meta.url));
export const CLIENT = fileURLToPath(new URL("./client-child.ts", import.meta.url));

export interface ServerHandle {
  child: BenchChild;
  port: number;
}

export async function startServer(root: string, kind: "hub" | "bare", nodeFlags: readonly string[] = []): Promise<ServerHandle> {
  const child = await BenchChild.start(SERVER, [kind], { cwd: root, name: `${kind} server`, nodeFlags });
  return { child, port: (child.ready as { port: number }).port };
}

export function startClients(root: string, count: number): Promise<BenchChild[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => BenchChild.start(CLIENT, [], { cwd: root, name: `clients ${i + 1}` })));
}

export async function stopAll(children: ReadonlyArray<BenchChild | undefined>): Promise<void> {
  await Promise.all(children.map((c) => c?.stop()));
}

export const hubThreadUrl = (port: number, threadId: string): string => `ws://127.0.0.1:${port}/threads/${threadId}/stream/events`;
export const bareUrl = (port: number): string => `ws://127.0.0.1:${port}/`;

/** Splits n into `parts` near-equal shares. */
export const shares = (n: number, parts: number): number[] => Array.from({ length: parts }, (_, i) => Math.floor(n / parts) + (i < n % parts ? 1 : 0));

export const cellOf = (values: readonly number[], why = "no measurement"): Cell => (values.length > 0 ? cell(summarize(values)) : na(`n/a: ${why}`));

export function median(values: readonly number[]): number | undefined {
  return values.length > 0 ? summarize(values).median : undefined;
}

export function hubRow(metric: string, unit: Unit, ours: readonly number[], peer: readonly number[] | Cell, target?: (ours: number | undefined, peer: number | undefined) => Target): Row {
  const peerCell = Array.isArray(peer) ? cellOf(peer as number[]) : (peer as Cell);
  const peerMedian = Array.isArray(peer) ? median(peer as number[]) : undefined;
  return { metric, unit, ours: cellOf(ours), peer: peerCell, ...(target ? { target: target(median(ours), peerMedian) } : {}) };
}

/** Server and client processes shared by the hub suites: started once per bench run. */
export interface Shared {
  hub: ServerHandle;
  bare: ServerHandle;
  clients: BenchChild[];
}

let servers: Promise<[ServerHandle, ServerHandle]> | undefined;
let clientsShared: Promise<BenchChild[]> | undefined;

/** Two client processes, kept for the whole run (they exit with the bench: the IPC channel closes). */
export function sharedClients(root: string): Promise<BenchChild[]> {
  clientsShared ??= startClients(root, 2);
  return clientsShared;
}

export async function sharedProcesses(root: string): Promise<Shared> {
  servers ??= Promise.all([startServer(root, "hub"), startServer(root, "bare")]);
  const [[hub, bare], clients] = await Promise.all([servers, sharedClients(root)]);
  return { hub, bare, clients };
}

/** Stops the shared servers (the memory suite wants the machine to itself, and fresh servers). */
export async function stopSharedServers(): Promise<void> {
  const s = servers;
  servers = undefined;
  const done = await s?.catch(() => undefined);
  if (done) await stopAll(done.map((d) => d.child));
}
