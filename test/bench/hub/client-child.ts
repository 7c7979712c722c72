/**
 * Client process of the hub suites:  node --import tsx client-child.ts
 * Holds groups of WebSocket connections (many per process) and measures what
 * they receive. Frames are scanned with indexOf rather than JSON.parse where
 * only a number is needed, so the clients cost as little CPU as they can.
 */
import WebSocket from "ws";
import { record, type Histogram } from "./histogram.ts";
import { serveParent, wallNow } from "../lib/proc.ts";

interface Conn {
  ws: WebSocket;
  /** Ticks received since armed. */
  ticks: number;
  seqs: number[];
  lastSeq: number | undefined;
  lastI: number;
  dead: boolean;
  /** Parsed frames (review group only). */
  onJson?: (msg: Record<string, unknown>) => void;
  /** The last input.requested seen (review group only). */
  pending?: { interruptId: string; runId: string };
}

interface Group {
  url: string;
  conns: Conn[];
  kind: "ticks" | "seqs" | "json";
}

const groups = new Map<string, Group>();

/** Fan-out measurement state, shared by every tick socket while armed. */
let armed:
  | {
      expect: number;
      hist: Histogram;
      received: number;
      complete: number;
      firstT: number;
      /** Emit time of the last event seen: how fast the server produced. */
      lastT: number;
      lastRecv: number;
      group: Group;
      /** Event index -> its slowest delivery (ms), for profile-latency. */
      worst: Map<number, number>;
      done?: () => void;
    }
  | undefined;

const T_KEY = Buffer.from('"t":');
const SEQ_KEY = Buffer.from('"seq":');
const I_KEY = Buffer.from('"i":');

function numberAfter(buf: Buffer, key: Buffer): number | undefined {
  const at = buf.indexOf(key);
  if (at < 0) return undefined;
  return Number.parseFloat(buf.toString("latin1", at + key.length, Math.min(buf.length, at + key.length + 24)));
}

const asBuffer = (data: WebSocket.RawData): Buffer => (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data));

function onFrame(group: Group, conn: Conn, raw: WebSocket.RawData): void {
  if (conn.dead) return;
  const buf = asBuffer(raw);
  if (group.kind === "json") {
    const msg = JSON.parse(buf.toString("utf8")) as Record<string, unknown>;
    if (msg["method"] === "input.requested") {
      const params = msg["params"] as { data: { interrupt_id: string } };
      conn.pending = { interruptId: params.data.interrupt_id, runId: String(msg["run_id"]) };
    }
    conn.onJson?.(msg);
    return;
  }
  if (group.kind === "ticks") {
    const a = armed;
    if (!a || a.group !== group) return;
    const t = numberAfter(buf, T_KEY);
    if (t === undefined) return;
    const now = wallNow();
    record(a.hist, now - t);
    const i = numberAfter(buf, I_KEY);
    if (i !== undefined) a.worst.set(i, Math.max(a.worst.get(i) ?? 0, now - t));
    a.received += 1;
    if (t < a.firstT) a.firstT = t;
    if (t > a.lastT) a.lastT = t;
    a.lastRecv = now;
    conn.ticks += 1;
    if (conn.ticks === a.expect) {
      a.complete += 1;
      if (a.complete === group.conns.length) a.done?.();
    }
    return;
  }
  // seqs: ticks with their seq and index (reconnect storm).
  const seq = numberAfter(buf, SEQ_KEY);
  if (seq === undefined) return;
  conn.seqs.push(seq);
  conn.lastSeq = seq;
  conn.lastI = numberAfter(buf, I_KEY) ?? conn.lastI;
}

/** Opens a socket and, if asked, sends one subscribe command and waits for its success. */
function connect(group: Group, conn: Conn | undefined, subscribe: Record<string, unknown> | undefined): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(group.url, { perMessageDeflate: false });
    const c: Conn = conn ?? { ws, ticks: 0, seqs: [], lastSeq: undefined, lastI: -1, dead: false };
    c.ws = ws;
    c.dead = false;
    const timer = setTimeout(() => reject(new Error(`connect/subscribe to ${group.url} timed out`)), 60_000);
    ws.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    ws.once("open", () => {
      if (!subscribe) {
        clearTimeout(timer);
        ws.on("message", (d) => {
          if (c.ws === ws) onFrame(group, c, d);
        });
        return resolve(c);
      }
      ws.once("message", (d) => {
        clearTimeout(timer);
        const text = asBuffer(d).toString("utf8");
        if (!text.includes('"type":"success"')) return reject(new Error(`subscribe failed: ${text.slice(0, 300)}`));
        ws.on("message", (m) => {
          if (c.ws === ws) onFrame(group, c, m);
        });
        resolve(c);
      });
      ws.send(JSON.stringify({ id: 1, method: "subscription.subscribe", params: subscribe }));
    });
  });
}

/** Runs `fn` over items with at most `limit` in flight. */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const groupOf = (msg: Record<string, unknown>): Group => {
  const g = groups.get(String(msg["group"]));
  if (!g) throw new Error(`no group ${String(msg["group"])}`);
  return g;
};

serveParent({
  async open(msg) {
    const name = String(msg["group"]);
    const group: Group = { url: String(msg["url"]), conns: [], kind: (msg["kind"] as Group["kind"]) ?? "ticks" };
    groups.set(name, group);
    const subscribe = msg["subscribe"] as Record<string, unknown> | undefined;
    const started = performance.now();
    group.conns = await pool(Array.from({ length: Number(msg["n"]) }), Number(msg["concurrency"] ?? 100), () => connect(group, undefined, subscribe));
    return { opened: group.conns.length, ms: performance.now() - started };
  },
  arm(msg) {
    const group = groupOf(msg);
    for (const c of group.conns) c.ticks = 0;
    armed = { expect: Number(msg["expect"]), hist: {}, received: 0, complete: 0, firstT: Number.POSITIVE_INFINITY, lastT: 0, lastRecv: 0, group, worst: new Map() };
    return true;
  },
  async collect(msg) {
    const a = armed;
    if (!a) throw new Error("not armed");
    if (a.complete < a.group.conns.length) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Number(msg["timeoutMs"]));
        a.done = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    armed = undefined;
    const slowest = [...a.worst].sort((x, y) => y[1] - x[1]).slice(0, 12);
    return { slowest, hist: a.hist, received: a.received, complete: a.complete, sockets: a.group.conns.length, firstT: a.firstT, lastT: a.lastT, lastRecv: a.lastRecv };
  },
  /** Reconnect storm: terminate every socket at once, reconnect each with since = its last seq. */
  async drop(msg) {
    const group = groupOf(msg);
    const subscribe = msg["subscribe"] as Record<string, unknown>;
    const t0 = wallNow();
    for (const c of group.conns) {
      c.dead = true;
      c.ws.terminate();
    }
    const liveAt: number[] = [];
    await pool(group.conns, Number(msg["concurrency"] ?? 1000), async (c) => {
      await connect(group, c, c.lastSeq === undefined ? subscribe : { ...subscribe, since: c.lastSeq });
      liveAt.push(wallNow());
    });
    return { t0, lastLive: Math.max(...liveAt), lastSeqs: group.conns.map((c) => c.lastSeq ?? -1) };
  },
  /** Waits until every socket saw tick `lastI`, then compares its seqs with the server's. */
  async verify(msg) {
    const group = groupOf(msg);
    const lastI = Number(msg["lastI"]);
    const deadline = Date.now() + Number(msg["timeoutMs"]);
    while (group.conns.some((c) => c.lastI < lastI) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const server = msg["seqs"] as number[];
    const expected = new Set(server);
    let lost = 0;
    let duplicated = 0;
    let outOfOrder = 0;
    let unexpected = 0;
    for (const c of group.conns) {
      const seen = new Set<number>();
      for (let i = 0; i < c.seqs.length; i++) {
        const s = c.seqs[i] as number;
        if (seen.has(s)) duplicated++;
        else if (!expected.has(s)) unexpected++;
        seen.add(s);
        if (i > 0 && s <= (c.seqs[i - 1] as number)) outOfOrder++;
      }
      for (const s of server) if (!seen.has(s)) lost++;
    }
    return { lost, duplicated, outOfOrder, unexpected, incomplete: group.conns.filter((c) => c.lastI < lastI).length };
  },
  /** Review race: waits for every socket to see the pending interrupt. */
  async waitInterrupt(msg) {
    const group = groupOf(msg);
    const deadline = Date.now() + Number(msg["timeoutMs"] ?? 20_000);
    const seen = () => group.conns.filter((c) => c.pending !== undefined).length;
    while (seen() < group.conns.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const first = group.conns[0]?.pending;
    if (!first || seen() < group.conns.length) throw new Error(`only ${seen()}/${group.conns.length} sockets saw input.requested`);
    return first;
  },
  /** Review race: every socket answers at once; times the first event of the resumed run. */
  async answer(msg) {
    const group = groupOf(msg);
    const { interruptId, runId } = msg as unknown as { interruptId: string; runId: string };
    const outcomes: Record<string, number> = {};
    const resumedRuns = new Set<string>();
    let firstEventAt = 0;
    let responses = 0;
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const check = (): void => {
      if (responses === group.conns.length && firstEventAt > 0) finish();
    };
    for (const c of group.conns) {
      c.onJson = (m) => {
        if (m["type"] === "event") {
          const rid = m["run_id"];
          if (typeof rid === "string" && rid !== runId) {
            resumedRuns.add(rid);
            if (firstEventAt === 0) firstEventAt = wallNow();
            check();
          }
        } else if (m["id"] === 7) {
          const key = m["type"] === "success" ? "success" : String(m["error"]);
          outcomes[key] = (outcomes[key] ?? 0) + 1;
          responses += 1;
          check();
        }
      };
    }
    const frame = JSON.stringify({ id: 7, method: "input.respond", params: { namespace: [], interrupt_id: interruptId, response: { approve: true } } });
    const t0 = wallNow();
    for (const c of group.conns) c.ws.send(frame);
    const timer = setTimeout(finish, Number(msg["timeoutMs"] ?? 15_000));
    await finished;
    clearTimeout(timer);
    const settle = wallNow();
    // Give a second resumed run (a double resume) a chance to show up.
    await new Promise((r) => setTimeout(r, 200));
    return { t0, firstEventAt, settle, outcomes, responses, resumedRuns: resumedRuns.size };
  },
  async closeAll() {
    const names = [...groups.keys()];
    for (const name of names) for (const c of groups.get(name)?.conns ?? []) c.ws.terminate();
    groups.clear();
    return names.length;
  },
  async close(msg) {
    const group = groups.get(String(msg["group"]));
    if (!group) return 0;
    groups.delete(String(msg["group"]));
    await Promise.all(
      group.conns.map(
        (c) =>
          new Promise<void>((resolve) => {
            c.dead = true;
            if (c.ws.readyState === WebSocket.CLOSED) return resolve();
            c.ws.once("close", () => resolve());
            c.ws.terminate();
          }),
      ),
    );
    return group.conns.length;
  },
});
