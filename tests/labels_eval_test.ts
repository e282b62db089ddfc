/**
 * `deno task eval` on datasets beyond the shipped one (real process): a
 * `gold_symbols` row is scored (or skipped with a note when its symbol is not
 * there), a `commit` key is the commit indexed, and `--repo` may name a git
 * working tree whose rows have no commit.
 */
import nodeAssert from "node:assert/strict";
import { join } from "node:path";
import type { EvalReport } from "../scripts/_eval_run.ts";
import { fixtureRepository, git, PROJECT_ROOT, tempDirectory, writeFiles } from "./_helpers.ts";

const assert = (condition: unknown, message?: string) => nodeAssert.ok(condition, message);
const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  nodeAssert.deepStrictEqual(actual, expected, message);

function commitAll(root: string, message: string): string {
  git(root, "add", "-A");
  git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", message);
  return git(root, "rev-parse", "HEAD").trim();
}

Deno.test("eval scores gold_symbols rows, honours commit, and takes a git working tree (real process)", async () => {
  // A history: the first commit defines legacyTax in src/legacy.ts; the second removes it.
  const history = fixtureRepository({
    "src/legacy.ts":
      "export function legacyTax(amount: number): number {\n  return amount / 5;\n}\n",
    "src/other.ts": "export function unrelated(): string {\n  return 'x';\n}\n",
  });
  const first = git(history, "rev-parse", "HEAD").trim();
  Deno.removeSync(join(history, "src/legacy.ts"));
  writeFiles(history, {
    "src/modern.ts": "export function modernTax(): number {\n  return 1;\n}\n",
  });
  commitAll(history, "drop legacy");

  // A working tree with an ignored file and uncommitted work: rows without a commit use it as is.
  const tree = fixtureRepository({
    ".gitignore": "ignored/\n",
    "pkg/rates.py":
      "def vat_rate(country):\n    return 0.2\n\n\nclass Ledger:\n    def post(self, entry):\n        return entry\n",
    "ignored/noise.py": "def vat_rate_noise():\n    return 0\n",
  });
  writeFiles(tree, { "pkg/draft.py": "def draft_rate():\n    return 0.1\n" });

  const dataset = join(tempDirectory({ prefix: "sextant-evalset-" }), "rows.jsonl");
  const rows = [
    {
      repo: "hist",
      instance_id: "at-commit",
      commit: first,
      query: "legacyTax",
      gold_files: ["src/legacy.ts"],
    },
    {
      repo: "tree",
      instance_id: "symbol",
      query: "vat rate by country",
      gold_symbols: ["vat_rate"],
    },
    {
      repo: "tree",
      instance_id: "qualified",
      query: "post a ledger entry",
      gold_symbols: ["pkg/rates.py:Ledger.post"],
    },
    { repo: "tree", instance_id: "uncommitted", query: "draft rate", gold_files: ["pkg/draft.py"] },
    { repo: "tree", instance_id: "gone", query: "anything", gold_symbols: ["noSuchSymbol"] },
  ];
  Deno.writeTextFileSync(dataset, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
  const out = join(tempDirectory({ prefix: "sextant-evalout-" }), "report.json");
  const run = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "--allow-all",
      join(PROJECT_ROOT, "scripts/eval.ts"),
      dataset,
      "--repo",
      `hist=${history}`,
      "--repo",
      `tree=${tree}`,
      "--strategies",
      "lexical",
      "--no-baseline",
      "--quiet",
      "--out",
      out,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(run.stdout);
  const stderr = new TextDecoder().decode(run.stderr);
  assertEquals(run.code, 0, `${stdout}\n${stderr}`);
  assert(!stderr.includes("    at "), `a stack trace: ${stderr}`);
  const report = JSON.parse(Deno.readTextFileSync(out)) as EvalReport;
  const byId = new Map(report.queries.map((query) => [query.id, query]));
  // The commit key is the commit indexed: the file exists only there.
  assertEquals(byId.get("at-commit")?.commit, first);
  assertEquals(byId.get("at-commit")?.scores.lexical.reciprocalRank, 1);
  // Gold symbols are scored: their files are gold files, their lines gold functions.
  assertEquals(byId.get("symbol")?.scores.lexical.reciprocalRank, 1);
  assert(byId.get("qualified")?.scores.lexical.functionRecall !== null);
  assertEquals(byId.get("qualified")?.top.lexical[0], "pkg/rates.py");
  // The working tree as it is (uncommitted files too, ignored ones not).
  assertEquals(byId.get("uncommitted")?.scores.lexical.reciprocalRank, 1);
  // A row whose only gold symbol is nowhere is skipped with a note, not a crash.
  assert(!byId.has("gone"));
  assertEquals(report.skipped?.map((row) => row.id), ["gone"]);
  assert(stdout.includes("skipped 1 row(s)"), stdout);
  assertEquals(report.rows, 4);
});

Deno.test("eval: a row without gold is one line on stderr, not a stack trace (real process)", async () => {
  const dataset = join(tempDirectory({ prefix: "sextant-evalset-" }), "rows.jsonl");
  Deno.writeTextFileSync(dataset, JSON.stringify({ repo: "x", query: "q" }) + "\n");
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", join(PROJECT_ROOT, "scripts/eval.ts"), dataset],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(run.stderr);
  assertEquals(run.code, 2);
  assert(stderr.includes(`${dataset}:1: needs 'gold_files' or 'gold_symbols'`), stderr);
  assert(!stderr.includes("    at "), stderr);
});
