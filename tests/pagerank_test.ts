/** PageRank and the context pack's order and scores: pure functions, exact expectations. */
import assert from "node:assert/strict";
import { edgeFlow, outWeights, pageRank, type WeightedEdge } from "../src/engine/pagerank.ts";
import { countedScore, definitionScore, lineTermCounts, packOrder } from "../src/engine/pack.ts";
import { codeTerms } from "../src/engine/tokenizer.ts";
import { definitionExtent } from "../src/engine/extent.ts";

const close = (a: number, b: number, what: string) =>
  assert.ok(Math.abs(a - b) < 1e-6, `${what}: ${a} ≠ ${b}`);
const sum = (values: ArrayLike<number>) => Array.from(values).reduce((a, b) => a + b, 0);

Deno.test("pagerank: a cycle ranks every node alike and the ranks sum to 1", () => {
  const edges = [{ from: 0, to: 1, weight: 1 }, { from: 1, to: 2, weight: 1 }, {
    from: 2,
    to: 0,
    weight: 1,
  }];
  const { ranks, converged } = pageRank(3, edges);
  assert.ok(converged);
  for (const rank of ranks) close(rank, 1 / 3, "cycle");
});

Deno.test("pagerank: the hub of a star leads; dangling rank is not lost", () => {
  const edges: WeightedEdge[] = [1, 2, 3, 4].map((from) => ({ from, to: 0, weight: 1 }));
  const { ranks } = pageRank(5, edges);
  close(sum(ranks), 1, "sum");
  for (let node = 1; node < 5; node++) assert.ok(ranks[0] > ranks[node]);
});

Deno.test("pagerank: personalisation and weights move rank as the equations say", () => {
  // 0 ⇄ 1, jumps only to 0: r0 = 0.15 + 0.85 r1, r1 = 0.85 r0.
  const { ranks } = pageRank(2, [{ from: 0, to: 1, weight: 1 }, { from: 1, to: 0, weight: 1 }], {
    personalization: [1, 0],
  });
  close(ranks[0], 0.15 / (1 - 0.85 * 0.85), "r0");
  close(ranks[1], 0.85 * ranks[0], "r1");
  // 0 → 1 three times as heavy as 0 → 2; both only hear from 0.
  const weighted = pageRank(3, [
    { from: 0, to: 1, weight: 3 },
    { from: 0, to: 2, weight: 1 },
    { from: 1, to: 0, weight: 1 },
    { from: 2, to: 0, weight: 1 },
  ]).ranks;
  close((weighted[1] - 0.05) / (weighted[2] - 0.05), 3, "weights split the followed mass");
});

Deno.test("pagerank: self-loops, non-positive weights and out-of-range edges are ignored", () => {
  const plain = pageRank(2, [{ from: 0, to: 1, weight: 1 }]).ranks;
  const noisy = pageRank(2, [
    { from: 0, to: 1, weight: 1 },
    { from: 1, to: 1, weight: 5 },
    { from: 1, to: 0, weight: 0 },
    { from: 0, to: 7, weight: 1 },
  ]).ranks;
  close(noisy[0], plain[0], "r0");
  close(noisy[1], plain[1], "r1");
  assert.deepEqual(Array.from(pageRank(0, []).ranks), []);
});

Deno.test("edge flows: a node's rank leaves along its edges in proportion to their weight", () => {
  const edges = [{ from: 0, to: 1, weight: 3 }, { from: 0, to: 2, weight: 1 }, {
    from: 1,
    to: 0,
    weight: 1,
  }];
  const ranks = [0.5, 0.3, 0.2];
  const outWeight = outWeights(ranks.length, edges);
  const flows = edges.map((edge) => edgeFlow(ranks, outWeight, edge));
  close(flows[0], 0.375, "0→1");
  close(flows[1], 0.125, "0→2");
  close(flows[2], 0.3, "1→0");
  // A self-loop passes nothing along, and counts in no out-weight.
  const looped = [...edges, { from: 1, to: 1, weight: 5 }];
  const loopedWeight = outWeights(ranks.length, looped);
  assert.equal(edgeFlow(ranks, loopedWeight, looped[3]), 0);
  close(edgeFlow(ranks, loopedWeight, looped[2]), 0.3, "1→0 beside a self-loop");
});

Deno.test("pack order: leading bodies within the share, their neighbours, then the rest", () => {
  const pieces = [
    { cost: 500, body: true, seed: 0 },
    { cost: 50, body: false, seed: 0 },
    { cost: 400, body: true, seed: 1 },
    { cost: 60, body: false, seed: 1 },
    { cost: 300, body: true, seed: 2 },
    { cost: 40, body: false, seed: 2 },
  ];
  // Budget 1000 × 0.7 = 700: body 0 (500) leads; bodies 1 (400) and 2 (300) would pass it.
  assert.deepEqual(packOrder(pieces, 1000, 0.7), [0, 1, 2, 4, 3, 5]);
  // A smaller body further on still joins the leading ones when it fits the share.
  const small = [...pieces, { cost: 150, body: true, seed: 3 }];
  assert.deepEqual(packOrder(small, 1000, 0.7), [0, 6, 1, 2, 4, 3, 5]);
  // The first body always leads, however large.
  assert.deepEqual(packOrder([{ cost: 5000, body: true, seed: 0 }], 100), [0]);
  assert.deepEqual(packOrder([], 100), []);
});

Deno.test("definition score: more query terms, rarer terms and named terms score higher", () => {
  const terms = [{ term: "retry", weight: 2, idf: 3 }, { term: "backoff", weight: 1, idf: 5 }];
  const both = definitionScore(terms, ["retry", "backoff", "x"], ["run"]);
  const one = definitionScore(terms, ["retry", "x", "y"], ["run"]);
  const named = definitionScore(terms, ["retry", "x", "y"], ["retry"]);
  const none = definitionScore(terms, ["x", "y", "z"], ["run"]);
  assert.ok(both > one && named > one && one > none);
  assert.equal(none, 0);
  // A longer body with the same matches scores lower.
  assert.ok(definitionScore(terms, ["retry", ...Array(500).fill("x")], ["run"]) < one);
});

Deno.test("definition extent: decorators (multi-line), attributes, comments and blank lines", () => {
  const lines = [
    "x = 1", // 1
    "", // 2
    "# a comment about f", // 3
    "@pytest.mark.parametrize(", // 4
    '    "a, b",', // 5
    "    [(1, 2)],", // 6
    ")", // 7
    "def f(a, b):", // 8
    "    return a + b", // 9
    "", // 10
    "", // 11
    "def g():", // 12
    "    pass", // 13
  ];
  assert.deepEqual(definitionExtent(lines, 8, 9), { start: 3, end: 11 });
  assert.deepEqual(definitionExtent(lines, 12, 13), { start: 12, end: 13 });
  const method = [
    "class A:",
    "    def f(self):",
    "        return 1",
    "    @property",
    "    def g(self):",
    "        return 2",
  ];
  // The body of the method above is not the decorator of g, and stops the walk up.
  assert.deepEqual(definitionExtent(method, 5, 6), { start: 4, end: 6 });
  assert.deepEqual(definitionExtent(method, 2, 3), { start: 2, end: 3 });
});

Deno.test("line term counts: any run of lines counts as that run tokenized whole, and scores alike", () => {
  const lines = [
    "def retry_with_backoff(call, attempts=3):",
    '    """Retry a call: backoff doubles."""',
    "    for attempt in range(attempts):",
    "        try:",
    "            return call()",
    "        except RetryError as e:  # retry again",
    "            backoff(attempt)",
    "",
    "class Retry:",
    "    x.y.z = retry2go",
    "    naïve_total = parse-config",
    "    ΟΔΟΣ.x = 1",
  ];
  // Compact identifiers (`retrywithbackoff`, `xyz`, `parseconfig`) are substrings of no line as
  // written; `naïve` and `οδος` are in lines that are not ASCII (`οδος` is a part lower-cased
  // alone: its final sigma is not the lower-case line's).
  const wanted = [
    "retry",
    "backoff",
    "attempt",
    "retry",
    "missing",
    "retrywithbackoff",
    "xyz",
    "retryerror",
    "parseconfig",
    "naïve",
    "οδος",
    "3",
  ];
  const cold = lineTermCounts(lines, wanted);
  // With the sums the first call returned, only lines that may hold a wanted term are read.
  const warm = lineTermCounts(lines, wanted, cold.sums);
  const terms = wanted.map((term, i) => ({ term, weight: 1 + i / 10, idf: 2 - i / 20 }));
  for (const [pass, counted] of [["cold", cold.counts], ["warm", warm.counts]] as const) {
    for (let from = 0; from <= lines.length + 1; from++) {
      for (let to = Math.max(from - 1, 0); to <= lines.length + 2; to++) {
        const whole = codeTerms(lines.slice(from, to).join("\n"));
        const body = counted(from, to);
        const what = `${pass} ${from}..${to}`;
        assert.equal(body.length, whole.length, what);
        for (const term of wanted) {
          assert.equal(body.count(term), whole.filter((t) => t === term).length, `${what} ${term}`);
        }
        assert.equal(
          countedScore(terms, body, { name: ["retry"] }),
          definitionScore(terms, whole, ["retry"]),
          what,
        );
      }
    }
  }
  // A compact identifier alone: its lines hold no other wanted term to be read for.
  for (const term of ["xyz", "parseconfig", "retrywithbackoff"]) {
    const alone = lineTermCounts(lines, [term], cold.sums).counts(0, lines.length);
    assert.equal(alone.count(term), 1, term);
  }
  // Each wanted term occurs somewhere: the counts above are not all zero.
  for (const term of wanted.filter((term) => term !== "missing")) {
    assert.ok(warm.counts(0, lines.length).count(term) > 0, term);
  }
});
