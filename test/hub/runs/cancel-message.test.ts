/**
 * docs/PROTOCOL.md, run.cancel: "every open message ends with an `error`
 * event, `code: "run_cancelled"`". The node's task is aborted by the cancel
 * and fails first; its open message must still say the run was cancelled,
 * not `task_failed` (issue 14 item 18).
 */
import { describe, expect, it } from "vitest";
import { ALL_CHANNELS, TestSocket, WAIT, isRootLifecycle, testHub, wsUrl } from "../../support/hub.ts";
import { vi } from "vitest";

describe("run.cancel mid-message", () => {
  it("the open message ends with error code run_cancelled, and nothing says task_failed", async () => {
    const hub = await testHub({ demoTokenDelayMs: 20 });
    const socket = await TestSocket.open(wsUrl(hub, "/threads/t-cancel-msg/stream/events"));
    await socket.subscribe({ channels: ALL_CHANNELS });
    expect((await socket.request("run.start", { assistant_id: "review", input: { topic: "a" } })).type).toBe("success");
    await vi.waitFor(() => {
      if (!socket.events.some((e) => e.method === "messages" && (e.params.data as { event?: string }).event === "content-block-delta")) throw new Error("no token yet");
    }, WAIT);
    expect(await socket.request("run.cancel", {})).toMatchObject({ type: "success" });
    await socket.waitForEvent(isRootLifecycle("failed"));
    const ends = socket.events.filter((e) => e.method === "messages" && ["error", "message-finish"].includes(String((e.params.data as { event?: string }).event)));
    expect(ends.map((e) => e.params.data)).toEqual([expect.objectContaining({ event: "error", code: "run_cancelled" })]);
    expect(JSON.stringify(socket.events)).not.toContain("task_failed");
    socket.expectValidFrames();
  });
});
