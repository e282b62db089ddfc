/**
 * Where structural grep's first query spends its time, per pattern: the
 * candidate lookup from the chunk terms, inflating file text, reading the
 * stored parse units, choosing the ranges to parse, parsing and matching,
 * with the files, ranges and characters at each step. It runs the grep
 * action's own steps (`src/actions/grep.ts` `planParse`, `src/grep/plan.ts`) on an indexed
 * checkout, then the action itself for its wall time and match count.
 *
 *   deno run -A --unstable-worker-options scripts/grep_profile.ts \
 *     --path /tmp/sympy --cache /tmp/sympy-cache [--repeat 3] [--pattern P]... \
 *     [--ast-grep ast-grep]
 *
 * The default patterns are the selective Python patterns of `_grep_patterns.ts`;
 * `--ast-grep` also times ast-grep on the checkout, once per pattern, for a
 * ratio measured in the same minutes.
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { runAction } from "../src/actions/dispatch.ts";
import { planParse } from "../src/actions/grep.ts";
import { grepLanguageForPath, grepLanguageNamed } from "../src/grep/languages.ts";
import { findMatches } from "../src/grep/matcher.ts";
import { parserFor } from "../src/grep/parsers.ts";
import { compilePattern } from "../src/grep/pattern.ts";
import {
  candidateFiles,
  containsAll,
  containsInOrder,
  requiredPhrases,
  requiredTerms,
} from "../src/grep/prefilter.ts";
import { forgetRegions } from "../src/grep/regions.ts";
import { rangedInput, topLevelPlan, topLevelRanges } from "../src/grep/plan.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { PARITY_PATTERNS } from "./_grep_patterns.ts";
import { threadCpuMs } from "./_bench_stats.ts";
import { unpackUnitTable } from "../src/store/packing.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    path: { type: "string" },
    cache: { type: "string" },
    repeat: { type: "string", default: "3" },
    pattern: { type: "string", multiple: true },
    "ast-grep": { type: "string" },
  },
});
if (!args.values.path || !args.values.cache) {
  console.error("usage: grep_profile.ts --path CHECKOUT --cache DIR [--repeat N] [--pattern P]...");
  Deno.exit(2);
}
const patterns = args.values.pattern ??
  PARITY_PATTERNS.filter((p) => p.repo === "sympy" && p.selective).map((p) => p.pattern);
const repeat = Number(args.values.repeat);
const language = grepLanguageNamed("python")!;
const parser = await parserFor(language);

const workspace = await Workspace.open({
  directory: args.values.path,
  cacheDirectory: args.values.cache,
});
try {
  const refreshStarted = performance.now();
  await runAction(workspace, "refresh", {});
  console.error(`refresh ${(performance.now() - refreshStarted).toFixed(0)} ms`);
  const repo = workspace.repositories[0];
  const rows: Record<string, unknown>[] = [];
  for (const pattern of patterns) {
    const runs: Record<string, number>[] = [];
    for (let i = 0; i < repeat; i++) {
      // A fresh reader each time: no text cached from the run before.
      workspace.close();
      const fresh = await Workspace.open({
        directory: args.values.path,
        cacheDirectory: args.values.cache,
      });
      runs.push(
        fresh.withReader(fresh.repositories[0], (reader) => profile(reader, pattern)).value!,
      );
      fresh.close();
    }
    const action: number[] = [];
    const cpu: number[] = [];
    let matches = 0;
    const reopened = await Workspace.open({
      directory: args.values.path,
      cacheDirectory: args.values.cache,
    });
    for (let i = 0; i < repeat; i++) {
      forgetRegions();
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      const answer = await runAction(reopened, "grep", {
        pattern,
        language: "python",
        limit: 1000,
        timeout_ms: 600_000,
      });
      action.push(performance.now() - started);
      const used = process.cpuUsage(cpuStarted);
      cpu.push((used.user + used.system) / 1000);
      matches = answer.results.length;
    }
    reopened.close();
    let astGrepMs: number | null = null;
    if (args.values["ast-grep"]) {
      const started = performance.now();
      await new Deno.Command(args.values["ast-grep"], {
        args: ["run", "--pattern", pattern, "--lang", "python", "--json=stream", "."],
        cwd: args.values.path,
        stdout: "null",
        stderr: "null",
      }).output();
      astGrepMs = performance.now() - started;
    }
    const row: Record<string, unknown> = {
      pattern,
      action_ms: median(action),
      action_cpu_ms: median(cpu),
      ast_grep_ms: astGrepMs === null ? null : Math.round(astGrepMs),
      ratio: astGrepMs === null ? null : Math.round(median(action) / astGrepMs * 1000) / 1000,
      matches,
    };
    for (const key of Object.keys(runs[0])) row[key] = median(runs.map((run) => run[key]));
    rows.push(row);
    console.log(JSON.stringify(row));
  }
  void repo;
} finally {
  workspace.close();
}

function profile(
  reader: Parameters<Parameters<Workspace["withReader"]>[1]>[0],
  source: string,
): Record<string, number> {
  const compiled = compilePattern(source, { language, parser });
  const figures: Record<string, number> = {
    candidates_ms: 0,
    text_ms: 0,
    units_ms: 0,
    plan_ms: 0,
    parse_ms: 0,
    match_ms: 0,
    files_candidate: 0,
    files_with_literals: 0,
    chars_inflated: 0,
    ranges_parsed: 0,
    chars_parsed: 0,
    nested_fallbacks: 0,
    matches: 0,
  };
  // CPU time of this thread: the machine is shared, wall time is not this process's alone.
  let at = threadCpuMs();
  const lap = (key: string) => {
    const now = threadCpuMs();
    figures[key] += now - at;
    at = now;
  };
  const files = candidateFiles(
    reader,
    requiredTerms(compiled.literals),
    requiredPhrases(compiled.literals),
  ).filter((file) => grepLanguageForPath(file.path) === language);
  figures.files_candidate = files.length;
  lap("candidates_ms");
  for (const file of files) {
    const read = reader.fileTextAndUnits(file.path);
    lap("text_ms");
    if (read === null) continue;
    const text = read.text;
    figures.chars_inflated += text.length;
    if (!containsAll(text, compiled.literals) || !containsInOrder(text, compiled.tokens)) continue;
    figures.files_with_literals++;
    const units = read.units ? unpackUnitTable(read.units) : null;
    lap("units_ms");
    let plan = planParse(compiled, { language, parser: parser.language! }, text, units, null);
    lap("plan_ms");
    if (plan && plan.ranges.length === 0) continue;
    let ranges = plan?.ranges;
    let tree = ranges
      ? parser.parse(rangedInput(text, ranges), null, { includedRanges: ranges })
      : parser.parse(text);
    if (tree && plan?.nested && tree.rootNode.hasError && units) {
      figures.nested_fallbacks++;
      tree.delete();
      plan = topLevelPlan(compiled, text, topLevelRanges(units), false, parser.language!);
      ranges = plan.ranges;
      tree = parser.parse(rangedInput(text, ranges), null, { includedRanges: ranges });
    }
    figures.ranges_parsed += ranges ? ranges.length : 1;
    figures.chars_parsed += ranges
      ? ranges.reduce((sum, range) => sum + range.endIndex - range.startIndex, 0)
      : text.length;
    lap("parse_ms");
    if (!tree) continue;
    const fillers = plan?.fillers ?? new Set<number>();
    const anchorRanges = plan?.anchorsInRanges ? plan.ranges : undefined;
    figures.matches += findMatches(tree, compiled, { language, limit: 1e9, text, anchorRanges })
      .matches
      .filter((match) => !fillers.has(match.node.startIndex)).length;
    tree.delete();
    lap("match_ms");
  }
  return figures;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)] * 10) / 10;
}
