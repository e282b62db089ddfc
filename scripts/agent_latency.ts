/**
 * Latency of map, outline, context and verify on one indexed repository: the
 * first call after opening (it builds what is memoized per generation) and
 * then the median and slowest of warm calls, each through `runAction` in this
 * process (what one query Worker of the daemon does).
 *
 *   deno run -A --unstable-worker-options scripts/agent_latency.ts --workspace DIR \
 *     --cache DIR [--runs 5] [--refresh] [--out report.json]
 *
 * Index the repository once first (e.g. `deno task query --workspace DIR --cache-dir DIR
 * refresh`); without --refresh the committed index is measured as it is.
 */
import { parseArgs } from "node:util";
import { runAction } from "../src/actions/dispatch.ts";
import { Workspace } from "../src/workspace/workspace.ts";

interface Case {
  name: string;
  action: string;
  params: Record<string, unknown> | ((workspace: Workspace) => Promise<Record<string, unknown>>);
}

const ISSUE = "Matrix.det returns nan for a symbolic matrix when the bareiss method divides by " +
  "zero; the berkowitz method gives the right determinant. Expected det() to cancel the " +
  "common factor before dividing.";

const CASES: Case[] = [
  { name: "map (no focus)", action: "map", params: { uncommitted: false } },
  { name: "map (issue text focus)", action: "map", params: { focus: ISSUE } },
  { name: "map (onboarding)", action: "map", params: { role: "onboarding" } },
  { name: "outline (root, depth 2)", action: "outline", params: {} },
  { name: "outline (a directory, depth 2)", action: "outline", params: { path: "sympy/core" } },
  { name: "outline (one file)", action: "outline", params: { path: "sympy/core/basic.py" } },
  { name: "context (issue text)", action: "context", params: { query: ISSUE } },
  { name: "context (symbols)", action: "context", params: { symbols: ["Basic.subs"] } },
  {
    name: "verify (20 citations)",
    action: "verify",
    params: async (workspace) => {
      const found = await runAction(workspace, "symbols", { query: "det", limit: 20 });
      return {
        citations: found.results.map((hit, i) => ({
          path: hit.path,
          start_line: hit.start_line,
          end_line: hit.end_line,
          symbol: hit.symbol,
          ...(i % 2 === 0 ? { text: String(hit.signature ?? "").split("(")[0] } : {}),
          ...(i % 5 === 0 ? { claim: `${hit.name} calls _det_bareiss` } : {}),
        })),
      };
    },
  },
];

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      workspace: { type: "string" },
      cache: { type: "string" },
      runs: { type: "string" },
      refresh: { type: "boolean" },
      out: { type: "string" },
    },
  });
  if (!values.workspace) {
    console.error("usage: agent_latency.ts --workspace DIR [--cache DIR] [--runs N] [--refresh]");
    return 2;
  }
  const runs = Number(values.runs ?? 5);
  const workspace = await Workspace.open({
    directory: values.workspace,
    cacheDirectory: values.cache,
  });
  const rows: {
    case: string;
    first_ms: number;
    median_ms: number;
    max_ms: number;
    results: number;
  }[] = [];
  try {
    if (values.refresh) await workspace.refresh(workspace.repositories[0]);
    for (const entry of CASES) {
      const params = typeof entry.params === "function"
        ? await entry.params(workspace)
        : entry.params;
      const times: number[] = [];
      let results = 0;
      for (let i = 0; i <= runs; i++) {
        const started = performance.now();
        const answer = await runAction(workspace, entry.action, params);
        times.push(performance.now() - started);
        results = answer.results.length;
      }
      const [first, ...warm] = times;
      warm.sort((a, b) => a - b);
      const row = {
        case: entry.name,
        first_ms: Math.round(first),
        median_ms: Math.round(warm[Math.floor((warm.length - 1) / 2)] ?? first),
        max_ms: Math.round(warm[warm.length - 1] ?? first),
        results,
      };
      rows.push(row);
      console.error(`${row.case}: first ${row.first_ms} ms, median ${row.median_ms} ms`);
    }
  } finally {
    workspace.close();
  }
  if (values.out) Deno.writeTextFileSync(values.out, JSON.stringify(rows, null, 2));
  console.log("| case | first call ms | warm median ms | warm max ms | results |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const row of rows) {
    console.log(
      `| ${row.case} | ${row.first_ms} | ${row.median_ms} | ${row.max_ms} | ${row.results} |`,
    );
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main());
