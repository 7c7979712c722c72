/**
 * Suite 3: `messages` streaming of one node whose scripted model streams
 * 10,000 one-character tokens — the rate at the stream consumer, how many
 * tokens arrived (counted, never assumed), and the same model's bare stream rate.
 */
import { performance } from "node:perf_hooks";
import { summarize, timeOnce } from "../lib/measure.ts";
import { cell, na, type Row } from "../lib/report.ts";
import type { Suite } from "../suite.ts";
import { measureBoth, measureSide, pick, row, type SideMeasure } from "./common.ts";
import { check, type TokenCount } from "./port.ts";

const TOKENS = 10_000;

/** Each engine streams once untimed before its first run (the process lives across runs). */
let warmed = false;

/** One engine, one run: several streams through the graph and bare, alternately. */
export const messagesSide: SideMeasure = async (engine, { quick, log }) => {
  const viaGraph = engine.streamMessages(TOKENS);
  const bare = engine.streamModel(TOKENS);
  if (!warmed) {
    warmed = true;
    await viaGraph();
    await bare();
  }
  // Several streams per run, bare and through the graph alternately, so a
  // hiccup of the machine does not decide a run; bounded in count and time.
  // At ~1M tokens/s a 10,000-token stream takes ~10 ms: up to 64 pairs, so one GC pause
  // or scheduling hiccup does not decide a run (8 pairs was 0.16 s in all, and a run's
  // ratio ranged 76%-106%). A slower engine is held to the time budget instead.
  const bounds = quick ? { streams: 8, budgetMs: 1_000 } : { streams: 64, budgetMs: 4_000 };
  const started = performance.now();
  let bareMs = 0;
  let graphMs = 0;
  let received = 0;
  let fewest = TOKENS;
  let streams = 0;
  while (streams < bounds.streams) {
    let bareCount: TokenCount = { tokens: 0, chars: 0 };
    bareMs += await timeOnce(async () => (bareCount = await bare()));
    check(bareCount.tokens === TOKENS, `${engine.label}: the bare model streamed ${bareCount.tokens} tokens, expected ${TOKENS}`);
    let got: TokenCount = { tokens: 0, chars: 0 };
    graphMs += await timeOnce(async () => (got = await viaGraph()));
    check(got.chars === got.tokens, `${engine.label}: chunks carried more than one character`);
    received += got.tokens;
    fewest = Math.min(fewest, got.tokens);
    streams += 1;
    if (performance.now() - started >= bounds.budgetMs) break;
  }
  const bareRate = (TOKENS * streams) / (bareMs / 1000);
  const graphRate = received / (graphMs / 1000);
  log(`messages ${engine.label}: ${streams} streams, fewest ${fewest}/${TOKENS} tokens, ${Math.round(graphRate)}/s via graph, ${Math.round(bareRate)}/s bare`);
  return { delivered: fewest, graphRate, bareRate, share: graphRate / bareRate };
};

/** LangGraph.js only: the token count with a model that awaits its token callbacks. */
export const messagesAwaitingSide: SideMeasure = async (engine) => {
  const { countWithAwaitingModel } = await import("./langgraph.ts");
  check(engine.label === "LangGraph.js", `messages-awaiting is a LangGraph.js measurement, not ${engine.label}'s`);
  return { tokens: (await countWithAwaitingModel(TOKENS)).tokens };
};

export const messagesSuite: Suite = {
  name: "messages",
  notes: [
    `**messages** — one node calls \`model.invoke(state.messages)\`; the model streams ${TOKENS.toLocaleString("en-US")} one-character chunks with no delay ` +
      "(Switchboard: `ScriptedChatModel`; LangGraph.js: `FakeListChatModel` from `@langchain/core/utils/testing`). " +
      'The consumer iterates `graph.stream(input, { streamMode: "messages" })` and counts AI chunks with non-empty text; ' +
      "tokens/s = tokens received ÷ time from calling stream() to the end of iteration, summed over the run's streams " +
      "(per run: up to 64 streams through the graph alternating with 64 bare streams, within 4 s; quick: 8 within 1 s; until 2026-11-30 up to 8, quick 3, which at Switchboard's rate was 0.16 s of streaming per run); the count is the fewest any stream of the run delivered. " +
      "FakeListChatModel calls `handleLLMNewToken` without awaiting it; the extra peer row repeats the count once with `FakeStreamingChatModel`, which awaits it. " +
      "The bare rate iterates the same model's own `stream()` outside any graph. " +
      '"messages rate ÷ bare model rate" pairs the two rates of the same run. Each engine streams once untimed first (warm-up).',
  ],
  async run(ctx) {
    const sides = await measureBoth(ctx, "messages");
    const awaiting = { tokens: (await measureSide(ctx, "langgraph", "messages-awaiting", 0)).tokens ?? Number.NaN };
    ctx.log(`messages LangGraph.js with FakeStreamingChatModel: ${awaiting.tokens}/${TOKENS} tokens`);
    const delivered = pick(sides, "delivered");
    const rows: Row[] = [
      row(`messages: tokens received of ${TOKENS.toLocaleString("en-US")} (fewest per run)`, "count", delivered, (ours) => ({
        text: `all ${TOKENS.toLocaleString("en-US")} in every stream`,
        met: ours.min === TOKENS,
      })),
      {
        metric: "— same, peer model awaits its token callbacks (FakeStreamingChatModel), 1 run",
        unit: "count",
        ours: na("—"),
        peer: cell(summarize([awaiting.tokens])),
      },
      row("messages: tokens/s at the consumer", "rate", pick(sides, "graphRate")),
      row("bare model stream: tokens/s", "rate", pick(sides, "bareRate")),
      row("messages rate ÷ bare model rate", "percent", pick(sides, "share"), (ours) => ({ text: "≥ 90%", met: ours.median >= 0.9 })),
    ];
    return rows;
  },
};
