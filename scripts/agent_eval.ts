/**
 * Quality of the agent actions on an eval set with gold files and functions
 * (beside `deno task eval`, which measures search):
 *
 * - context: the share of rows whose gold function bodies are inside a pack of
 *   `--context-budget` tokens (default 4000) built from the issue text, beside
 *   search's top hits cut to the same token budget;
 * - map: the share of rows whose gold file appears in a map of `--map-budget`
 *   tokens (default 1000) personalised by the issue text;
 * - verify: citations taken from real answers, clean and corrupted
 *   (`_agent_eval_verify.ts`): precision and recall of flagging the corrupted ones.
 *
 *   deno run -A --unstable-worker-options scripts/agent_eval.ts DATASET.jsonl \
 *     --repo NAME=PATH [--repo …] [--rows N] [--actions context,map,verify] \
 *     [--cache DIR] [--out report.json] [--quiet]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runAction } from "../src/actions/dispatch.ts";
import type { ResultHit } from "../src/protocol/types.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { readRows } from "./eval.ts";
import type { EvalRow } from "./_eval_run.ts";
import {
  checkout,
  commitOf,
  type LocatedFunction,
  locateGold,
  prepareTree,
} from "./_agent_eval_trees.ts";
import { applyEdits, type Corruption, planCitations } from "./_agent_eval_verify.ts";

type Action = "context" | "map" | "verify";
const ACTIONS: Action[] = ["context", "map", "verify"];

/** Snippets that are source lines as they stand (context pieces that are not summaries). */
const VERBATIM_PIECES = new Set(["body", "excerpt", "caller", "import"]);

interface RowResult {
  id: string;
  context?: {
    rowCovered: boolean;
    functions: number;
    covered: number;
    searchRowCovered: boolean;
    searchCovered: number;
    tokens: number;
    searchTokens: number;
    ms: number;
  };
  map?: {
    goldShown: boolean;
    allGoldShown: boolean;
    files: number;
    rank: number | null;
    ms: number;
  };
  verify?: {
    citations: number;
    truePositives: number;
    falsePositives: number;
    falseNegatives: number;
    trueNegatives: number;
    byCorruption: Record<string, { total: number; flagged: number }>;
    falsePositiveSamples: unknown[];
    falseNegativeSamples: unknown[];
    ms: number;
  };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      repo: { type: "string", multiple: true },
      rows: { type: "string" },
      actions: { type: "string" },
      cache: { type: "string" },
      out: { type: "string" },
      quiet: { type: "boolean" },
      "context-budget": { type: "string" },
      "map-budget": { type: "string" },
    },
  });
  if (positionals.length !== 1) {
    console.error("usage: agent_eval.ts DATASET.jsonl --repo NAME=PATH … [--rows N]");
    return 2;
  }
  const sources: Record<string, string> = {};
  for (const pair of values.repo ?? []) {
    const at = pair.indexOf("=");
    if (at <= 0) {
      console.error(`Cannot parse --repo '${pair}': expected NAME=PATH`);
      return 2;
    }
    sources[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const actions = values.actions ? values.actions.split(",") as Action[] : ACTIONS;
  let rows = readRows(positionals[0]);
  if (values.rows) rows = rows.slice(0, Number(values.rows));
  const contextBudget = Number(values["context-budget"] ?? 4000);
  const mapBudget = Number(values["map-budget"] ?? 1000);
  const log = values.quiet ? () => {} : (line: string) => console.error(line);
  const cache = values.cache ?? Deno.makeTempDirSync({ prefix: "sextant-agent-eval-" });
  const results: RowResult[] = [];

  const byRepo = new Map<string, EvalRow[]>();
  for (const row of rows) byRepo.set(row.repo, [...(byRepo.get(row.repo) ?? []), row]);
  for (const [name, repoRows] of byRepo) {
    const source = sources[name];
    if (!source) throw new Error(`No source for '${name}': pass --repo ${name}=PATH`);
    const tree = join(cache, "trees", name.replaceAll("/", "+"));
    const ordered = prepareTree(source, tree, repoRows);
    const workspace = await Workspace.open({ directory: tree, cacheDirectory: cache });
    try {
      for (const row of ordered) {
        const commit = commitOf(row);
        if (commit) checkout(tree, commit);
        await workspace.refresh(workspace.repositories[0]);
        const gold = locateGold(workspace, row.gold_functions ?? []);
        const result: RowResult = { id: row.instance_id ?? row.query.slice(0, 40) };
        if (actions.includes("context")) {
          result.context = await contextRow(workspace, row, gold, contextBudget);
        }
        if (actions.includes("map")) result.map = await mapRow(workspace, row, mapBudget);
        if (actions.includes("verify")) result.verify = await verifyRow(workspace, tree, row, gold);
        results.push(result);
        log(rowLine(result));
      }
    } finally {
      workspace.close();
    }
  }
  const report = summarise(results, { contextBudget, mapBudget });
  if (values.out) Deno.writeTextFileSync(values.out, JSON.stringify({ report, results }, null, 2));
  console.log(formatSummary(report, positionals[0]));
  return 0;
}

/** Gold function bodies inside the pack, beside search's top hits at the same token count. */
async function contextRow(
  workspace: Workspace,
  row: EvalRow,
  gold: LocatedFunction[],
  budget: number,
): Promise<RowResult["context"]> {
  const located = gold.filter((fn) => fn.lines !== null);
  const started = performance.now();
  const pack = await runAction(workspace, "context", { query: row.query, token_budget: budget });
  const ms = performance.now() - started;
  const search = await runAction(workspace, "search", {
    query: row.query,
    token_budget: budget,
    limit: 1000,
  });
  const packHits = pack.results.filter((hit) => VERBATIM_PIECES.has(String(hit.piece)));
  const coveredBy = (hits: ResultHit[]) =>
    located.filter((fn) => covers(hits.filter((hit) => hit.path === fn.path), fn.lines!)).length;
  const covered = coveredBy(packHits);
  const searchCovered = coveredBy(search.results);
  return {
    rowCovered: located.length > 0 && covered === located.length,
    functions: located.length,
    covered,
    searchRowCovered: located.length > 0 && searchCovered === located.length,
    searchCovered,
    tokens: Math.ceil(JSON.stringify(pack.results).length / 4),
    searchTokens: Math.ceil(JSON.stringify(search.results).length / 4),
    ms,
  };
}

/** Whether the snippets of some hits hold every line of a function (their union). */
function covers(hits: ResultHit[], lines: [number, number]): boolean {
  const held = new Set<number>();
  for (const hit of hits) {
    const count = hit.snippet === "" ? 0 : hit.snippet.split("\n").length;
    for (let line = hit.start_line; line < hit.start_line + count; line++) held.add(line);
  }
  for (let line = lines[0]; line <= lines[1]; line++) if (!held.has(line)) return false;
  return true;
}

async function mapRow(
  workspace: Workspace,
  row: EvalRow,
  budget: number,
): Promise<RowResult["map"]> {
  const started = performance.now();
  const map = await runAction(workspace, "map", {
    focus: row.query,
    token_budget: budget,
    uncommitted: false,
  });
  const ms = performance.now() - started;
  const paths = map.results.map((hit) => hit.path);
  const goldFiles: string[] = row.gold_files ?? [];
  const ranks = goldFiles.map((path) => paths.indexOf(path)).filter((i) => i >= 0);
  return {
    goldShown: ranks.length > 0,
    allGoldShown: ranks.length === goldFiles.length,
    files: paths.length,
    rank: ranks.length > 0 ? Math.min(...ranks) + 1 : null,
    ms,
  };
}

async function verifyRow(
  workspace: Workspace,
  tree: string,
  row: EvalRow,
  gold: LocatedFunction[],
): Promise<RowResult["verify"]> {
  const plan = await planCitations(workspace, tree, row, gold);
  applyEdits(tree, plan);
  await workspace.refresh(workspace.repositories[0]);
  const started = performance.now();
  const answer = await runAction(workspace, "verify", {
    citations: plan.citations.map((c) => c.citation),
    limit: 1000,
  });
  const ms = performance.now() - started;
  const out: NonNullable<RowResult["verify"]> = {
    citations: plan.citations.length,
    truePositives: 0,
    falsePositives: 0,
    falseNegatives: 0,
    trueNegatives: 0,
    byCorruption: {},
    falsePositiveSamples: [],
    falseNegativeSamples: [],
    ms,
  };
  const byIndex = new Map(answer.results.map((hit) => [hit.index as number, hit]));
  plan.citations.forEach((labelled, index) => {
    const hit = byIndex.get(index);
    const flagged = hit === undefined || hit.verdict !== "ok";
    const bad = labelled.corruption !== null;
    if (bad) {
      const kind = labelled.corruption as Corruption;
      out.byCorruption[kind] ??= { total: 0, flagged: 0 };
      out.byCorruption[kind].total++;
      if (flagged) out.byCorruption[kind].flagged++;
    }
    if (bad && flagged) out.truePositives++;
    else if (!bad && flagged) {
      out.falsePositives++;
      if (out.falsePositiveSamples.length < 5) {
        out.falsePositiveSamples.push({ ...labelled, verdict: hit?.verdict, reason: hit?.reason });
      }
    } else if (bad && !flagged) {
      out.falseNegatives++;
      if (out.falseNegativeSamples.length < 5) {
        out.falseNegativeSamples.push({ ...labelled, verdict: hit?.verdict, reason: hit?.reason });
      }
    } else out.trueNegatives++;
  });
  return out;
}

interface Summary {
  rows: number;
  context?: {
    budget: number;
    rows_with_gold: number;
    pack_row_share: number;
    pack_function_share: number;
    search_row_share: number;
    search_function_share: number;
    mean_pack_tokens: number;
    mean_search_tokens: number;
    mean_ms: number;
  };
  map?: {
    budget: number;
    gold_shown_share: number;
    all_gold_shown_share: number;
    mean_files: number;
    mean_ms: number;
  };
  verify?: {
    citations: number;
    corrupted: number;
    precision: number;
    recall: number;
    by_corruption: Record<string, { total: number; flagged: number }>;
    mean_ms: number;
  };
}

function summarise(
  results: RowResult[],
  budgets: { contextBudget: number; mapBudget: number },
): Summary {
  const mean = (values: number[]) =>
    values.length === 0 ? 0 : round(values.reduce((a, b) => a + b, 0) / values.length);
  const summary: Summary = { rows: results.length };
  const context = results.flatMap((r) => r.context && r.context.functions > 0 ? [r.context] : []);
  if (context.length > 0) {
    const functions = context.reduce((n, c) => n + c.functions, 0);
    summary.context = {
      budget: budgets.contextBudget,
      rows_with_gold: context.length,
      pack_row_share: mean(context.map((c) => (c.rowCovered ? 1 : 0))),
      pack_function_share: round(context.reduce((n, c) => n + c.covered, 0) / functions),
      search_row_share: mean(context.map((c) => (c.searchRowCovered ? 1 : 0))),
      search_function_share: round(context.reduce((n, c) => n + c.searchCovered, 0) / functions),
      mean_pack_tokens: Math.round(mean(context.map((c) => c.tokens))),
      mean_search_tokens: Math.round(mean(context.map((c) => c.searchTokens))),
      mean_ms: Math.round(mean(context.map((c) => c.ms))),
    };
  }
  const maps = results.flatMap((r) => (r.map ? [r.map] : []));
  if (maps.length > 0) {
    summary.map = {
      budget: budgets.mapBudget,
      gold_shown_share: mean(maps.map((m) => (m.goldShown ? 1 : 0))),
      all_gold_shown_share: mean(maps.map((m) => (m.allGoldShown ? 1 : 0))),
      mean_files: mean(maps.map((m) => m.files)),
      mean_ms: Math.round(mean(maps.map((m) => m.ms))),
    };
  }
  const verifies = results.flatMap((r) => (r.verify ? [r.verify] : []));
  if (verifies.length > 0) {
    const sum = (key: "truePositives" | "falsePositives" | "falseNegatives" | "citations") =>
      verifies.reduce((n, v) => n + v[key], 0);
    const tp = sum("truePositives");
    const byCorruption: Record<string, { total: number; flagged: number }> = {};
    for (const v of verifies) {
      for (const [kind, counts] of Object.entries(v.byCorruption)) {
        byCorruption[kind] ??= { total: 0, flagged: 0 };
        byCorruption[kind].total += counts.total;
        byCorruption[kind].flagged += counts.flagged;
      }
    }
    summary.verify = {
      citations: sum("citations"),
      corrupted: tp + sum("falseNegatives"),
      precision: round(tp / Math.max(1, tp + sum("falsePositives"))),
      recall: round(tp / Math.max(1, tp + sum("falseNegatives"))),
      by_corruption: byCorruption,
      mean_ms: Math.round(mean(verifies.map((v) => v.ms))),
    };
  }
  return summary;
}

function formatSummary(summary: Summary, dataset: string): string {
  const lines = [`${dataset}: ${summary.rows} rows`];
  if (summary.context) {
    const c = summary.context;
    lines.push(
      `context (${c.budget} tokens, ${c.rows_with_gold} rows with located gold functions): ` +
        `gold bodies inside the pack ${c.pack_row_share} of rows (${c.pack_function_share} of ` +
        `functions); search top hits at the same budget ${c.search_row_share} ` +
        `(${c.search_function_share}); pack ${c.mean_pack_tokens} tokens, search ` +
        `${c.mean_search_tokens}; ${c.mean_ms} ms/pack`,
    );
  }
  if (summary.map) {
    const m = summary.map;
    lines.push(
      `map (${m.budget} tokens): a gold file shown in ${m.gold_shown_share} of rows (all gold ` +
        `files ${m.all_gold_shown_share}); ${m.mean_files} files per map; ${m.mean_ms} ms/map`,
    );
  }
  if (summary.verify) {
    const v = summary.verify;
    const kinds = Object.entries(v.by_corruption).map(([kind, counts]) =>
      `${kind} ${counts.flagged}/${counts.total}`
    ).join(", ");
    lines.push(
      `verify: ${v.citations} citations (${v.corrupted} corrupted): precision ${v.precision}, ` +
        `recall ${v.recall}; flagged per corruption: ${kinds}; ${v.mean_ms} ms/call`,
    );
  }
  return lines.join("\n");
}

function rowLine(result: RowResult): string {
  const parts = [result.id];
  if (result.context) {
    parts.push(
      `context ${result.context.covered}/${result.context.functions} (search ${result.context.searchCovered})`,
    );
  }
  if (result.map) parts.push(`map ${result.map.rank ?? "-"}/${result.map.files}`);
  if (result.verify) {
    const v = result.verify;
    parts.push(`verify tp ${v.truePositives} fp ${v.falsePositives} fn ${v.falseNegatives}`);
  }
  return parts.join("  ");
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

if (import.meta.main) Deno.exit(await main());
