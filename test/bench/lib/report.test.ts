/** The bench's statistics and table formatting (the numbers docs/benchmarks.md shows). */
import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { summarize, summarizeRuns, timeLoop } from "./measure.ts";
import { cell, formatCell, formatRatio, formatValue, na, ratioOf, tableLines, type Row } from "./report.ts";

describe("summarize", () => {
  it.each([
    [[5], 5, 5, 5],
    [[3, 1, 2], 2, 1, 3],
    [[4, 1, 3, 2], 2.5, 1, 4],
    [[0, 0, 0], 0, 0, 0],
  ])("%j → median %d, min %d, max %d", (values, median, min, max) => {
    expect(summarize(values)).toMatchObject({ median, min, max });
  });

  it("refuses an empty list", () => {
    expect(() => summarize([])).toThrow(RangeError);
  });

  it("groups per-run records by metric", () => {
    const out = summarizeRuns([{ a: 1, b: 10 }, { a: 3, b: 30 }, { a: 2, b: 20 }]);
    expect(out.a.median).toBe(2);
    expect(out.b).toMatchObject({ min: 10, max: 30 });
  });
});

describe("timeLoop", () => {
  it("stops at the iteration bound", async () => {
    let calls = 0;
    const sample = await timeLoop(async () => void calls++, { warmup: 2, warmupMs: 1000, iterations: 5, budgetMs: 10_000 });
    expect(sample.ops).toBe(5);
    expect(calls).toBe(7);
  });

  it("stops at the time bound but runs at least once", async () => {
    const busy = async () => {
      const end = performance.now() + 2;
      while (performance.now() < end);
    };
    const sample = await timeLoop(busy, { warmup: 0, warmupMs: 0, iterations: 1000, budgetMs: 1 });
    expect(sample.ops).toBe(1);
  });
});

describe("formatting", () => {
  it.each([
    [0.0123, "time", "12.3 µs"],
    [1.5, "time", "1.5 ms"],
    [2500, "time", "2.5 s"],
    [0, "time", "0 ns"],
    [151_118, "rate", "151 k/s"],
    [2300, "bytes", "2.25 KB"],
    [512, "bytes", "512 B"],
    [0.772, "percent", "77.2%"],
    [10_000, "count", "10,000"],
  ] as const)("%d as %s → %s", (value, unit, text) => {
    expect(formatValue(value, unit)).toBe(text);
  });

  it("prints the range in the median's scale", () => {
    expect(formatCell(cell(summarize([0.04, 0.05, 1.2])), "time")).toBe("50 µs (40–1,200)");
    expect(formatCell(na("n/a"), "time")).toBe("n/a");
  });

  it("gives ours / peer, or nothing when a side is missing", () => {
    const row: Row = { metric: "m", unit: "time", ours: cell(summarize([1])), peer: cell(summarize([20])) };
    expect(ratioOf(row)).toBe(0.05);
    expect(formatRatio(row)).toBe("0.05×");
    expect(formatRatio({ ...row, peer: na("n/a") })).toBe("—");
  });

  it("lays out one padded markdown table with the peer's name", () => {
    const rows: Row[] = [{ metric: "chain", unit: "time", ours: cell(summarize([1])), peer: cell(summarize([20])), target: { text: "ratio ≤ 0.10", met: true } }];
    const lines = tableLines(rows, "LangGraph.js");
    expect(lines[0]).toMatch(/^\| metric \| Switchboard \| LangGraph\.js \| ratio \(ours\/peer\) \| target +\| met\? \|$/);
    expect(lines[2]).toContain("| 1 ms ");
    expect(lines[2]).toContain("| yes  |");
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
  });
});
