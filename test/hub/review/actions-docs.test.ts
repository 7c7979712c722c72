/**
 * docs/PROTOCOL.md "Per-action decisions in one interrupt" is what the hub
 * does: its interrupt, run through the ReviewService, becomes the items its
 * queue copy shows; its two answers, in its order, resume the interrupt once
 * with both decisions in action order; its refusal is the hub's, word for word.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Principal } from "../../../hub/auth/index.ts";
import { ReviewService, actionJson } from "../../../hub/review/index.ts";
import { MemoryReviewStore } from "../../../hub/storage/memory/index.ts";
import { T0 } from "./fixtures.ts";

const text = readFileSync(fileURLToPath(new URL("../../../docs/PROTOCOL.md", import.meta.url)), "utf8");
const start = text.indexOf("#### Per-action decisions in one interrupt");
const section = text.slice(start, text.indexOf("\n#### ", start + 10));
const blocks = [...section.matchAll(/^```json protocol-(event|command|response)\n([\s\S]*?)^```$/gm)].map((m) => JSON.parse(m[2] ?? "") as Record<string, any>);

const reviewer = (sub: string): Principal => ({ sub, name: sub, tenant: "acme", roles: ["reviewer"] });

describe("PROTOCOL.md per-action example", () => {
  it("has the interrupt, a queue copy, two answers, the success and a refusal", () => {
    expect(start).toBeGreaterThan(0);
    expect(blocks.map((b) => b["method"] ?? b["type"])).toEqual(["input.requested", "input.requested", "input.respond", "input.respond", "success", "error"]);
  });

  it("is what the hub does with that interrupt and those answers", async () => {
    const [asked, copy, first, second, success, refusal] = blocks as [Record<string, any>, Record<string, any>, Record<string, any>, Record<string, any>, Record<string, any>, Record<string, any>];
    const reviews = new ReviewService({ store: new MemoryReviewStore(), routing: { queue: "default" }, clock: () => T0 });
    const data = asked["params"]["data"];
    const { items } = await reviews.onInterruptRequested({
      interruptId: data["interrupt_id"],
      threadId: asked["thread_id"],
      runId: asked["run_id"],
      tenant: "acme",
      namespace: [],
      node: asked["params"]["node"],
      payload: data["payload"],
      startedBy: "olive",
    });
    // The queue copy shows the refund's item as the hub makes it.
    const [refund] = items;
    expect(refund?.interruptId).toBe(copy["params"]["data"]["interrupt_id"]);
    expect(refund?.payload).toEqual(copy["params"]["data"]["payload"]);
    expect(actionJson(refund!.action!)).toEqual(copy["review"]["action"]);
    expect([refund?.routing.queue, refund?.routing.users]).toEqual([copy["review"]["queue"], copy["review"]["users"]]);
    expect(items[1]?.routing.queue).toBe("support");

    // The documented refusal, word for word.
    const wrong = await reviews.answer(reviewer("rita"), refund!.interruptId, { type: "edit", edited_action: { name: "issue_refund", args: { amount: 1 } } });
    expect(wrong.result).toMatchObject({ ok: false, code: refusal["error"], message: refusal["message"] });

    // The two answers in the documented order: the first resumes nothing, the second resumes once with both.
    const one = await reviews.answer(reviewer("sid"), first["params"]["interrupt_id"], first["params"]["response"]);
    expect(one.resume).toBeNull();
    const two = await reviews.answer(reviewer("rita"), second["params"]["interrupt_id"], second["params"]["response"]);
    expect(success["result"]["resumed"]).toBe(true);
    expect(two.resume?.answers).toEqual({ [data["interrupt_id"]]: { decisions: [second["params"]["response"], first["params"]["response"]] } });
    // …which is the value the prose says interrupt() returns.
    const said = section.slice(section.indexOf("`interrupt()` returns"), section.indexOf("```json protocol-response"));
    expect(said.replace(/\s+/g, "")).toContain(JSON.stringify(two.resume?.answers[data["interrupt_id"]]).replace(/\s+/g, ""));
  });
});
