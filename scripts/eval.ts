/**
 * `deno task eval`: retrieval quality per search strategy beside a grep-only
 * baseline (recall@k, MRR, nDCG@10 and tokens-to-gold per strategy).
 *
 *   deno task eval                                  the shipped fixture set (eval/)
 *   deno task eval DATASET.jsonl --repo NAME=PATH [--rows N] [--strategies lexical,hybrid]
 *                  [--no-baseline] [--out run.json] [--quiet] [--cache DIR]
 *                  [--variant NAME='{"testPenalty":1}']   (ranking overrides scored beside)
 *   deno task eval --compare A.json B.json          what moved between two runs
 */
import { parseArgs } from "node:util";
import { compareReports, formatReport } from "./_eval_report.ts";
import { type EvalReport, type EvalRow, runEval, STRATEGIES, type Strategy } from "./_eval_run.ts";

const PROJECT_ROOT = new URL("../", import.meta.url).pathname;
export const FIXTURE_DATASET = `${PROJECT_ROOT}eval/fixture.jsonl`;
export const FIXTURE_SOURCE = `${PROJECT_ROOT}eval/fixture`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      repo: { type: "string", multiple: true },
      rows: { type: "string" },
      strategies: { type: "string" },
      "no-baseline": { type: "boolean" },
      out: { type: "string" },
      compare: { type: "boolean" },
      quiet: { type: "boolean" },
      cache: { type: "string" },
      variant: { type: "string", multiple: true },
    },
  });
  if (values.compare) {
    if (positionals.length !== 2) {
      console.error("usage: deno task eval --compare A.json B.json");
      return 2;
    }
    const [a, b] = positionals.map((path) => JSON.parse(Deno.readTextFileSync(path)) as EvalReport);
    console.log(compareReports(a, b, positionals[0], positionals[1]));
    return 0;
  }
  const dataset = positionals[0] ?? FIXTURE_DATASET;
  const sources: Record<string, string> = positionals[0] ? {} : { fixture: FIXTURE_SOURCE };
  for (const pair of values.repo ?? []) {
    const at = pair.indexOf("=");
    if (at <= 0) {
      console.error(`Cannot parse --repo '${pair}': expected NAME=PATH`);
      return 2;
    }
    sources[pair.slice(0, at)] = pair.slice(at + 1);
  }
  let rows = readRows(dataset);
  if (values.rows) rows = rows.slice(0, Number(values.rows));
  const strategies = values.strategies ? values.strategies.split(",") as Strategy[] : STRATEGIES;
  for (const strategy of strategies) {
    if (!STRATEGIES.includes(strategy)) {
      console.error(`Unknown strategy '${strategy}': expected ${STRATEGIES.join(", ")}`);
      return 2;
    }
  }
  const report = await runEval({
    rows,
    sources,
    strategies,
    baseline: !values["no-baseline"],
    cacheDirectory: values.cache,
    variants: Object.fromEntries((values.variant ?? []).map((pair) => {
      const at = pair.indexOf("=");
      return [pair.slice(0, at), JSON.parse(pair.slice(at + 1))];
    })),
    log: values.quiet ? undefined : (line) => console.error(line),
  });
  if (values.out) Deno.writeTextFileSync(values.out, JSON.stringify(report, null, 2));
  console.log(formatReport(report, dataset));
  return 0;
}

/**
 * Reads a JSONL dataset. A row is answered at `base_commit`, else `parent` (commit-set rows
 * name their parent), else `commit`; its gold is `gold_files` and/or `gold_symbols`.
 */
export function readRows(path: string): EvalRow[] {
  const lines = Deno.readTextFileSync(path).split("\n");
  const rows: EvalRow[] = [];
  for (const [i, line] of lines.entries()) {
    if (!line.trim()) continue;
    const at = `${path}:${i + 1}`;
    let row: EvalRow;
    try {
      row = JSON.parse(line) as EvalRow;
    } catch (error) {
      throw new SyntaxError(`Cannot parse ${at}: ${(error as Error).message}`);
    }
    const list = (value: unknown) =>
      value === undefined || (Array.isArray(value) && value.every((v) => typeof v === "string"));
    if (typeof row.repo !== "string" || typeof row.query !== "string") {
      throw new SyntaxError(`Cannot parse ${at}: needs 'repo' and 'query'`);
    }
    if (!list(row.gold_files) || !list(row.gold_symbols) || !list(row.gold_functions)) {
      throw new SyntaxError(
        `Cannot parse ${at}: 'gold_files', 'gold_symbols' and 'gold_functions' are lists of strings`,
      );
    }
    if ((row.gold_files?.length ?? 0) === 0 && (row.gold_symbols?.length ?? 0) === 0) {
      throw new SyntaxError(`Cannot parse ${at}: needs 'gold_files' or 'gold_symbols'`);
    }
    for (const key of ["base_commit", "parent", "commit"] as const) {
      if (row[key] !== undefined && typeof row[key] !== "string") {
        throw new SyntaxError(`Cannot parse ${at}: '${key}' is not a string`);
      }
    }
    rows.push(row);
  }
  return rows;
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main();
  } catch (error) {
    // A bad dataset, source or commit is told in one line, not a stack trace.
    console.error(`eval: ${(error as Error)?.message ?? error}`);
    code = 2;
  }
  Deno.exit(code);
}
