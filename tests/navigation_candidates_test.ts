/**
 * Candidates are bounded like results: uses that could mean the same definitions come back as one
 * candidate (its first use, a count, ten further sites, twenty definitions and their total), and
 * the candidates of a page share its `limit` and `token_budget`.
 */
import nodeAssert from "node:assert/strict";
import { runAction } from "../src/actions/dispatch.ts";
import { tokenCost } from "../src/actions/paging.ts";
import type { Envelope, ResultHit } from "../src/protocol/types.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, tempCache } from "./_helpers.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  nodeAssert.deepStrictEqual(actual, expected, message);
const assert: (value: unknown, message?: string) => asserts value = nodeAssert.ok;

const CLASSES = 25;
const USES = 30;

function files(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < CLASSES; i++) {
    out[`m${String(i).padStart(2, "0")}.py`] =
      `class C${i}:\n    def run(self):\n        return ${i}\n`;
  }
  // Thirty uses of `run` on receivers whose type is not evident, in two functions.
  const lines = Array.from({ length: USES }, (_, i) => `    x${i % 7}.run()`);
  out["use.py"] = "def first(x0, x1, x2, x3, x4, x5, x6):\n" + lines.slice(0, 12).join("\n") +
    "\n\n\ndef second(x0, x1, x2, x3, x4, x5, x6):\n" + lines.slice(12).join("\n") + "\n";
  // Four calls that name C1's `run` exactly, from four functions.
  out["direct.py"] = "from m01 import C1\n\n\n" +
    Array.from({ length: 4 }, (_, i) => `def d${i}():\n    return C1().run()\n`).join("\n\n");
  // A method of one class only, called on receivers of no evident type from eight functions.
  out["only.py"] = "class D:\n    def only(self):\n        return 0\n";
  out["calls.py"] = Array.from({ length: 8 }, (_, i) => `def f${i}(d):\n    return d.only()\n`)
    .join("\n\n");
  return out;
}

Deno.test("candidates are grouped by the definitions they could mean and fit the page", async () => {
  const workspace = await Workspace.open({
    directory: fixtureRepository(files()),
    cacheDirectory: tempCache(),
  });
  try {
    await workspace.refresh(workspace.repositories[0]);
    const data = (answer: Envelope<unknown>) => answer.data as Record<string, unknown>;

    // Thirty ambiguous uses of one name: one candidate, not thirty lists of 25 definitions.
    const callers = await runAction(workspace, "callers", { symbol: "m00.C0.run" });
    assertEquals(callers.results, []);
    assertEquals(callers.candidates?.length, 1);
    const [group] = callers.candidates!;
    assertEquals([group.path, group.start_line, group.symbol], ["use.py", 2, "use.first"]);
    assertEquals(group.uses, USES);
    const sites = group.other_sites as { start_line: number; symbol: string }[];
    assertEquals(sites.map((s) => s.start_line), [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const meant = group.candidates as { symbol: string }[];
    assertEquals(meant.length, 20);
    assertEquals(group.candidates_total, CLASSES);
    assertEquals(data(callers).ambiguous_uses, USES);
    assert(
      callers.limitations.some((l) =>
        l.startsWith(`${USES} use(s) could mean several definitions`) &&
        l.includes("(1: one per group of uses that could mean the same definitions)")
      ),
      callers.limitations.join("\n"),
    );
    assertEquals(callers.truncated, false);

    // A token budget holds the candidates too: none fit in 100 tokens, and the answer says so.
    const tight = await runAction(workspace, "callers", {
      symbol: "m00.C0.run",
      token_budget: 100,
    });
    assertEquals(tight.candidates, undefined);
    assertEquals(tight.truncated, true);
    assert(
      tight.limitations.includes("1 candidate(s); the first 0 are listed (token_budget 100)"),
      tight.limitations.join("\n"),
    );
    const roomy = await runAction(workspace, "callers", {
      symbol: "m00.C0.run",
      token_budget: tokenCost(group),
    });
    assertEquals(roomy.candidates, [group]);
    assertEquals(roomy.truncated, false);

    // An ambiguous name's definitions are candidates within `limit`.
    const all = await runAction(workspace, "definition", { symbol: "run" });
    assertEquals(all.candidates?.length, CLASSES);
    assertEquals(all.truncated, false);
    const five = await runAction(workspace, "definition", { symbol: "run", limit: 5 });
    assertEquals(five.candidates, all.candidates!.slice(0, 5));
    assertEquals(five.truncated, true);
    assert(
      five.limitations.includes(
        `${CLASSES} candidate(s); the first 5 are listed (limit 5): a qualified name, or 'path', narrows them`,
      ),
      five.limitations.join("\n"),
    );
    // Eight edges matched by name through receivers of no evident type: five named, three counted.
    const only = await runAction(workspace, "callers", { symbol: "only.D.only" });
    assertEquals(only.results.length, 8);
    const dispatch = only.limitations.filter((l) => l.startsWith("dynamic dispatch at "));
    assertEquals(dispatch.length, 6, dispatch.join("\n"));
    assertEquals(
      dispatch[5],
      "dynamic dispatch at 3 more sites: receivers of no statically evident type, matched by name (approximate)",
    );
    // Candidates come with the first page; the next pages continue the results only.
    const first = await runAction(workspace, "callers", { symbol: "m01.C1.run", limit: 2 });
    assertEquals(first.results.map((h) => h.symbol), ["direct.d0", "direct.d1"]);
    assertEquals(first.candidates?.map((c) => c.uses), [USES]);
    assert(first.next_cursor);
    const second = await runAction(workspace, "callers", {
      symbol: "m01.C1.run",
      limit: 2,
      cursor: first.next_cursor,
    });
    assertEquals(second.results.map((h) => h.symbol), ["direct.d2", "direct.d3"]);
    assertEquals(second.candidates, undefined);
    assert(
      second.limitations.includes("candidates are listed on the first page of this answer"),
      second.limitations.join("\n"),
    );
    // Impact over the same uses: grouped the same way.
    const impact = await runAction(workspace, "impact", { symbol: "m00.C0.run" });
    assertEquals(impact.candidates?.map((c: ResultHit) => [c.start_line, c.uses]), [[2, USES]]);
  } finally {
    workspace.close();
  }
});
