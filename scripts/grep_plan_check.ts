/**
 * Exactness of grep's parse plans (`src/grep/plan.ts`) on an indexed checkout:
 * for every file with stored statement units and every pattern, the matches
 * found in the planned parse equal those in a parse of the whole file (node
 * range, kind and bindings, in the same order). Prints the files and patterns that differ and
 * exits 1 when any does.
 *
 *   deno run -A --unstable-worker-options scripts/grep_plan_check.ts \
 *     --path /tmp/sympy --cache /tmp/sympy-cache [--pattern P]...
 */
import { parseArgs } from "node:util";
import type { Tree } from "web-tree-sitter";
import { runAction } from "../src/actions/dispatch.ts";
import { planParse } from "../src/actions/grep.ts";
import { grepLanguageForPath, grepLanguageNamed } from "../src/grep/languages.ts";
import { findMatches, type Match } from "../src/grep/matcher.ts";
import { parserFor } from "../src/grep/parsers.ts";
import { compilePattern } from "../src/grep/pattern.ts";
import { containsAll, containsInOrder } from "../src/grep/prefilter.ts";
import { rangedInput, topLevelPlan, topLevelRanges } from "../src/grep/plan.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { PARITY_PATTERNS } from "./_grep_patterns.ts";

/** Dense patterns: most statements hold their literals, so most plans are exercised. */
const DENSE = [
  "$A.$B($$$)",
  "$F($A)",
  "return $X",
  "$A = $B",
  "lambda $X: $Y",
  "if $A: $$$B",
  "def $F($$$A): $$$B",
  "class $C($$$B): $$$D",
  "$A[$B]",
  "not $A",
  "@$D\ndef $F($$$A): $$$B",
  "for $X in $Y: $$$B",
  "raise $E",
  "$A == $B",
];

const args = parseArgs({
  args: Deno.args,
  options: {
    path: { type: "string" },
    cache: { type: "string" },
    language: { type: "string", default: "python" },
    pattern: { type: "string", multiple: true },
  },
});
if (!args.values.path || !args.values.cache) {
  console.error("usage: grep_plan_check.ts --path CHECKOUT --cache DIR [--pattern P]...");
  Deno.exit(2);
}
const language = grepLanguageNamed(args.values.language!)!;
const parser = await parserFor(language);
const sources = args.values.pattern ?? [
  ...DENSE,
  ...PARITY_PATTERNS.filter((p) => p.language === language.language).map((p) => p.pattern),
];
const compiled = sources.map((source) => compilePattern(source, { language, parser }));

const workspace = await Workspace.open({
  directory: args.values.path,
  cacheDirectory: args.values.cache,
});
let differences = 0;
let checked = 0;
let fallbacks = 0;
try {
  await runAction(workspace, "refresh", {});
  const repo = workspace.repositories[0];
  const paths = workspace.withReader(repo, (reader) => [...reader.paths()].sort()).value ?? [];
  for (const path of paths) {
    if (grepLanguageForPath(path) !== language) continue;
    const read = workspace.withReader(repo, (reader) => ({
      text: reader.fileText(path),
      units: reader.statementUnitTable(path),
    })).value;
    if (!read?.text || !read.units) continue;
    const { text, units } = read;
    const full = parser.parse(text)!;
    try {
      for (const [i, pattern] of compiled.entries()) {
        // The whole file's matches by visiting every node of the root kind; the plan's from the
        // literal's occurrences.
        const expected = keys(full, pattern, new Set(), undefined, undefined);
        let actual: string[] = [];
        if (containsAll(text, pattern.literals) && containsInOrder(text, pattern.tokens)) {
          let plan = planParse(pattern, { language, parser: parser.language! }, text, units, null);
          if (plan === null) continue;
          if (plan.ranges.length > 0) {
            let tree = parser.parse(rangedInput(text, plan.ranges), null, {
              includedRanges: plan.ranges,
            })!;
            if (plan.nested && tree.rootNode.hasError) {
              fallbacks++;
              console.error(`fallback: ${path} ${JSON.stringify(sources[i])}`);
              tree.delete();
              plan = topLevelPlan(pattern, text, topLevelRanges(units), false, parser.language!);
              tree = parser.parse(rangedInput(text, plan.ranges), null, {
                includedRanges: plan.ranges,
              })!;
            }
            actual = keys(
              tree,
              pattern,
              plan.fillers,
              text,
              plan.anchorsInRanges ? plan.ranges : undefined,
            );
            tree.delete();
          }
        }
        checked++;
        const missing = expected.filter((key) => !actual.includes(key));
        const extra = actual.filter((key) => !expected.includes(key));
        const reordered = missing.length === 0 && extra.length === 0 &&
          expected.join("\n") !== actual.join("\n");
        if (missing.length > 0 || extra.length > 0 || reordered) {
          differences++;
          console.log(
            `${path} ${JSON.stringify(sources[i])}: missing ${missing.slice(0, 3)} extra ${
              extra.slice(0, 3)
            }${reordered ? " (same matches, another order)" : ""}`,
          );
        }
      }
    } finally {
      full.delete();
    }
  }
} finally {
  workspace.close();
}
console.log(
  `${checked} file × pattern pairs checked, ${differences} differ, ${fallbacks} nested plans fell back`,
);
if (differences > 0) Deno.exit(1);

function keys(
  tree: Tree,
  pattern: ReturnType<typeof compilePattern>,
  fillers: Set<number>,
  text: string | undefined,
  anchorRanges: readonly { startIndex: number; endIndex: number }[] | undefined,
): string[] {
  const { matches } = findMatches(tree, pattern, { language, limit: 1e9, text, anchorRanges });
  return matches.filter((match) => !fillers.has(match.node.startIndex)).map(key);
}

function key(match: Match): string {
  const bindings = [...match.bindings].map(([name, binding]) => {
    const nodes = binding.kind === "single" ? [binding.node] : binding.nodes;
    return `${name}=${nodes.map((node) => `${node.startIndex}-${node.endIndex}:${node.type}`)}`;
  });
  return `${match.node.startIndex}-${match.node.endIndex}:${match.node.type}[${bindings}]`;
}
