/**
 * The frame the hub builds once per event and writes to every socket: a
 * real `ws` client on a real socket must read each one back as one TEXT
 * message with the same text, across the three length encodings of RFC 6455.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { framePayload, textFrame } from "../../../hub/ws/frames.ts";

let server: Server;
let url: string;
/** Texts the server writes, as prebuilt frames, to each socket that connects. */
let toSend: string[] = [];

beforeAll(async () => {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server = createServer();
  server.on("upgrade", (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, () => {
      for (const text of toSend) socket.write(textFrame(text));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function receive(texts: string[]): Promise<Array<{ text: string; isBinary: boolean }>> {
  toSend = texts;
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const got: Array<{ text: string; isBinary: boolean }> = [];
  await new Promise<void>((resolve, reject) => {
    ws.on("message", (data: Buffer, isBinary) => {
      got.push({ text: data.toString("utf8"), isBinary });
      if (got.length === texts.length) resolve();
    });
    ws.on("error", reject);
    ws.on("close", (code) => reject(new Error(`closed with ${code} after ${got.length} messages`)));
  });
  ws.terminate();
  return got;
}

describe("textFrame", () => {
  const texts = ["", "x", "a".repeat(125), "b".repeat(126), "c".repeat(65_535), "d".repeat(65_536), "é€😀".repeat(30_000)];

  it.each(texts.map((t) => [t.length, t] as const))("a %i-character text reads back as one TEXT message", async (_n, text) => {
    expect(await receive([text])).toEqual([{ text, isBinary: false }]);
  });

  it("frames in a row arrive as separate messages, in order", async () => {
    expect((await receive(["one", "two", "three"])).map((m) => m.text)).toEqual(["one", "two", "three"]);
  });

  it("uses the shortest length encoding; framePayload finds the text after it", () => {
    const texts = [125, 126, 65_535, 65_536].map((n) => "z".repeat(n));
    const frames = texts.map(textFrame);
    expect(frames.map((f, i) => f.length - (texts[i]?.length ?? 0))).toEqual([2, 4, 4, 10]);
    expect(frames.map((f) => framePayload(f).toString("utf8"))).toEqual(texts);
    const multibyte = textFrame("€");
    expect(framePayload(multibyte).length).toBe(3);
    expect(framePayload(multibyte).toString("utf8")).toBe("€");
  });
});
