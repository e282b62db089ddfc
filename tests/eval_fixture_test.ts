import assert from "node:assert/strict";
import { FIXTURE_DATASET, FIXTURE_SOURCE, readRows } from "../scripts/eval.ts";
import { runEval } from "../scripts/_eval_run.ts";
import { scoreQuery, summarize } from "../scripts/_eval_metrics.ts";
import { compareReports } from "../scripts/_eval_report.ts";

Deno.test("eval: metrics of a ranked list (recall, MRR, nDCG, tokens to gold)", () => {
  const items = [
    { path: "a.ts", symbol: null, tokens: 100 },
    { path: "b.ts", symbol: null, tokens: 50, lines: [10, 20] as [number, number] },
    { path: "a.ts", symbol: null, tokens: 70 },
    { path: "c.ts", symbol: null, tokens: 10 },
  ];
  const score = scoreQuery(items, {
    files: ["b.ts", "c.ts"],
    functions: [{ name: "f", path: "b.ts", lines: [15, 30] }, {
      name: "g",
      path: "z.ts",
      lines: null,
    }],
  });
  assert.deepEqual(score.fileRecall, { 1: 0, 5: 1, 10: 1 });
  assert.equal(score.reciprocalRank, 0.5);
  assert.equal(score.tokensToGold, 150);
  assert.deepEqual(score.functionRecall, { 1: 0, 5: 0.5, 10: 0.5 });
  const ideal = 1 + 1 / Math.log2(3);
  assert.ok(Math.abs(score.ndcg10 - (1 / Math.log2(3) + 1 / Math.log2(4)) / ideal) < 1e-9);
  const miss = scoreQuery(items, { files: ["zzz.ts"] });
  assert.equal(miss.found, false);
  assert.equal(miss.tokensToGold, 230);
  const summary = summarize([score, miss]);
  assert.equal(summary.mrr, 0.25);
  assert.equal(summary.tokens_to_gold_median, 150);
});

Deno.test("eval: the shipped fixture set gives its known numbers", async () => {
  const report = await runEval({
    rows: readRows(FIXTURE_DATASET),
    sources: { fixture: FIXTURE_SOURCE },
  });
  assert.equal(report.rows, 12);
  const pick = (name: string) => {
    const s = report.summaries[name];
    return [s.recall_at_1, s.recall_at_5, s.mrr, s.function_recall_at_5, s.tokens_to_gold_median];
  };
  assert.deepEqual(pick("lexical"), EXPECTED.lexical);
  assert.deepEqual(pick("vector"), EXPECTED.vector);
  assert.deepEqual(pick("hybrid"), EXPECTED.hybrid);
  assert.deepEqual(pick("grep"), EXPECTED.grep);
  // Comparing a run with itself moves nothing.
  assert.doesNotMatch(compareReports(report, report, "a", "b"), /\(\+0\.[0-9]*[1-9]|\(-/);
});

/**
 * `deno task eval` on eval/fixture.jsonl: [recall@1, recall@5, MRR, function
 * recall@5, median tokens to gold]. Lexical misses only the query that needs
 * morphology ("retrying with backoffs"), which the trigram vectors find.
 */
const EXPECTED: Record<string, (number | null)[]> = {
  lexical: [0.917, 0.917, 0.917, 1, 156],
  vector: [1, 1, 1, 1, 161],
  hybrid: [1, 1, 1, 1, 161],
  grep: [0.833, 0.917, 0.875, null, 156],
};
