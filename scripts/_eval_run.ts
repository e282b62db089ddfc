/**
 * The eval runner: checks each row's commit out, refreshes the index
 * incrementally (rows walked in commit order), asks `search` per strategy and
 * the grep baseline, and scores both.
 */
import { join } from "node:path";
import { runAction } from "../src/actions/dispatch.ts";
import { RANKING } from "../src/search/rank.ts";
import { ZONE_WEIGHTS } from "../src/engine/query.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { grepBaseline } from "./_eval_grep.ts";
import {
  type GoldFunction,
  type QueryScore,
  type RankedItem,
  scoreQuery,
  summarize,
  type Summary,
} from "./_eval_metrics.ts";

const DEFAULT_RANKING = { ...RANKING };
const DEFAULT_ZONES = { ...ZONE_WEIGHTS };

/** Applies a variant: RANKING keys as they are, query zone weights as `zone_<name>`. */
function applyVariant(overrides: Record<string, number>): void {
  Object.assign(RANKING, DEFAULT_RANKING);
  Object.assign(ZONE_WEIGHTS, DEFAULT_ZONES);
  for (const [key, value] of Object.entries(overrides)) {
    if (key.startsWith("zone_")) (ZONE_WEIGHTS as Record<string, number>)[key.slice(5)] = value;
    else (RANKING as Record<string, number>)[key] = value;
  }
}

export type Strategy = "lexical" | "vector" | "hybrid";
export const STRATEGIES: Strategy[] = ["lexical", "vector", "hybrid"];

/** One line of an eval JSONL file. */
export interface EvalRow {
  repo: string;
  instance_id?: string;
  base_commit?: string;
  parent?: string;
  /** The commit to index when neither `base_commit` nor `parent` is given. */
  commit?: string;
  query: string;
  gold_files?: string[];
  gold_functions?: string[];
  /**
   * Gold definitions: `path:Qualified.name`, or a name or qualified name found
   * in the index at the row's commit; their files are gold files too.
   */
  gold_symbols?: string[];
}

/** The commit a row is answered at: `base_commit`, else `parent`, else `commit`, else none. */
export function rowCommit(row: EvalRow): string | null {
  return row.base_commit ?? row.parent ?? row.commit ?? null;
}

export interface EvalOptions {
  rows: EvalRow[];
  /** Repository name → a git repository (bare or not) or, for rows without a commit, a directory. */
  sources: Record<string, string>;
  strategies?: Strategy[];
  baseline?: boolean;
  /** Chunks asked of `search` per query. */
  searchLimit?: number;
  /** Files the grep baseline reads at most. */
  baselineLimit?: number;
  /**
   * Ranking variants (name → overrides of RANKING) scored in the same run,
   * each under `<strategy>:<name>`: one walk of the commits, several rankings.
   */
  variants?: Record<string, Partial<typeof RANKING>>;
  /** Keep indexes here between runs (default: a fresh temporary directory). */
  cacheDirectory?: string;
  log?: (line: string) => void;
}

export interface QueryResult {
  id: string;
  repo: string;
  commit: string | null;
  scores: Record<string, QueryScore>;
  /** Top files per strategy, for reading what went wrong. */
  top: Record<string, string[]>;
  /** The confidence label each strategy gave, and the features it came from. */
  confidence: Record<string, string>;
  features: Record<string, unknown>;
}

export interface EvalReport {
  rows: number;
  summaries: Record<string, Summary>;
  /** Per strategy and confidence label: answers given, and how many had a gold file first. */
  calibration: Record<string, Record<string, { answers: number; goldFirst: number }>>;
  queries: QueryResult[];
  /** Rows not scored, each with why (a gold symbol not found at the row's commit). */
  skipped?: { id: string; reason: string }[];
  /** Gold symbols not found (the row was scored on the rest). */
  notes?: string[];
  timings_ms: { refresh: number; search: Record<string, number>; baseline: number };
}

/** Runs the evaluation; rows of each repository are walked in commit order. */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const strategies = options.strategies ?? STRATEGIES;
  const log = options.log ?? (() => {});
  const baseline = options.baseline ?? true;
  const searchLimit = options.searchLimit ?? 30;
  const byRepo = new Map<string, EvalRow[]>();
  for (const row of options.rows) {
    if (!byRepo.has(row.repo)) byRepo.set(row.repo, []);
    byRepo.get(row.repo)!.push(row);
  }
  const queries: QueryResult[] = [];
  const skipped: { id: string; reason: string }[] = [];
  const notes: string[] = [];
  const timings = { refresh: 0, search: {} as Record<string, number>, baseline: 0 };
  for (const [repoName, rows] of byRepo) {
    const source = options.sources[repoName];
    if (!source) {
      throw new Error(`No source for repository '${repoName}': pass --repo ${repoName}=PATH`);
    }
    const scratch = Deno.makeTempDirSync({ prefix: "sextant-eval-" });
    try {
      // With a kept cache the tree is kept too: the target is keyed by the tree's path.
      const tree = options.cacheDirectory
        ? join(options.cacheDirectory, "trees", repoName.replaceAll("/", "+"))
        : join(scratch, "tree");
      const ordered = prepareTree(source, tree, rows);
      const workspace = await Workspace.open({
        directory: tree,
        cacheDirectory: options.cacheDirectory ?? join(scratch, "cache"),
      });
      try {
        for (const [index, row] of ordered.entries()) {
          const commit = rowCommit(row);
          if (commit) git(tree, "checkout", "-q", "--detach", "--force", commit);
          let started = performance.now();
          const report = await workspace.refresh(workspace.repositories[0]);
          timings.refresh += performance.now() - started;
          const result: QueryResult = {
            id: row.instance_id ?? `${repoName}#${index}`,
            repo: repoName,
            commit,
            scores: {},
            top: {},
            confidence: {},
            features: {},
          };
          const symbols = locateSymbols(workspace, row.gold_symbols ?? []);
          for (const name of symbols.missing) {
            notes.push(`${result.id}: gold symbol '${name}' is not defined at ${commit ?? "HEAD"}`);
          }
          const functions = [
            ...(row.gold_functions && row.gold_functions.length > 0
              ? locateFunctions(workspace, row.gold_functions)
              : []),
            ...symbols.found,
          ];
          const gold = {
            files: [...new Set([...(row.gold_files ?? []), ...symbols.found.map((f) => f.path)])],
            functions: functions.length > 0 ? functions : undefined,
          };
          if (gold.files.length === 0) {
            const reason = `no gold file: gold symbols ${
              symbols.missing.map((name) => `'${name}'`).join(", ")
            } not found at ${commit ?? "HEAD"}`;
            skipped.push({ id: result.id, reason });
            log(`${result.id} skipped: ${reason}`);
            continue;
          }
          const runs: [string, Strategy, Partial<typeof RANKING>][] = [];
          for (const strategy of strategies) {
            runs.push([strategy, strategy, {}]);
            for (const [name, overrides] of Object.entries(options.variants ?? {})) {
              runs.push([`${strategy}:${name}`, strategy, overrides]);
            }
          }
          for (const [label, strategy, overrides] of runs) {
            applyVariant(overrides as Record<string, number>);
            started = performance.now();
            const answer = await runAction(workspace, "search", {
              query: row.query,
              strategy,
              limit: searchLimit,
            });
            applyVariant({});
            timings.search[label] = (timings.search[label] ?? 0) + performance.now() - started;
            const items: RankedItem[] = answer.results.map((hit) => ({
              path: hit.path,
              symbol: hit.symbol ? `${hit.path}:${localName(hit.path, hit.symbol)}` : null,
              lines: [hit.start_line, hit.end_line] as [number, number],
              tokens: Math.ceil(hit.snippet.length / 4),
            }));
            result.scores[label] = scoreQuery(items, gold);
            result.confidence[label] = answer.provenance.confidence;
            result.features[label] = (answer.data as { confidence_features?: unknown } | undefined)
              ?.confidence_features;
            result.top[label] = [...new Set(items.map((item) => item.path))].slice(0, 5);
          }
          if (baseline) {
            started = performance.now();
            const items = await grepBaseline(tree, row.query, {
              limit: options.baselineLimit ?? 10,
            });
            timings.baseline += performance.now() - started;
            // Whole files are read: function recall does not apply to the baseline.
            result.scores.grep = scoreQuery(items, { files: gold.files });
            result.top.grep = items.slice(0, 5).map((item) => item.path);
          }
          queries.push(result);
          const line = Object.entries(result.scores).map(([name, score]) =>
            `${name}=${score.reciprocalRank.toFixed(2)}`
          ).join(" ");
          log(`${result.id} (parsed ${report.parsed}) ${line}`);
        }
      } finally {
        workspace.close();
      }
    } finally {
      Deno.removeSync(scratch, { recursive: true });
    }
  }
  const summaries: Record<string, Summary> = {};
  const labels = queries[0] ? Object.keys(queries[0].scores) : [];
  for (const name of labels) {
    summaries[name] = summarize(queries.map((query) => query.scores[name]));
  }
  for (const key of Object.keys(timings.search)) {
    timings.search[key] = Math.round(timings.search[key]);
  }
  timings.refresh = Math.round(timings.refresh);
  timings.baseline = Math.round(timings.baseline);
  const calibration: EvalReport["calibration"] = {};
  for (const name of labels) {
    if (name === "grep") continue;
    const byLabel: Record<string, { answers: number; goldFirst: number }> = {};
    for (const query of queries) {
      const label = query.confidence[name] ?? "weak";
      byLabel[label] ??= { answers: 0, goldFirst: 0 };
      byLabel[label].answers++;
      if (query.scores[name].reciprocalRank === 1) byLabel[label].goldFirst++;
    }
    calibration[name] = byLabel;
  }
  return {
    rows: queries.length,
    summaries,
    calibration,
    queries,
    ...(skipped.length > 0 ? { skipped } : {}),
    ...(notes.length > 0 ? { notes } : {}),
    timings_ms: timings,
  };
}

/**
 * Finds gold symbols in the index: `path:Qualified.name` in that file, else a
 * name or qualified name anywhere (every definition it names is gold).
 */
function locateSymbols(
  workspace: Workspace,
  symbols: string[],
): { found: GoldFunction[]; missing: string[] } {
  const repo = workspace.repositories[0];
  const found: GoldFunction[] = [];
  const missing: string[] = [];
  for (const entry of symbols) {
    const at = entry.indexOf(":");
    const path = at > 0 && !entry.slice(at).startsWith("::") ? entry.slice(0, at) : null;
    const name = path === null ? entry : entry.slice(at + 1);
    const last = name.split(/\.|::/).pop() ?? name;
    const rows = workspace.withReader(
      repo,
      (reader) => path === null ? reader.symbolsNamed(last) : reader.symbolsInFile(path),
    ).value ?? [];
    const matching = rows.filter((s) =>
      s.qualified === name || s.qualified.endsWith(`.${name}`) ||
      s.qualified.endsWith(`::${name}`) || (name === last && s.name === last)
    );
    if (matching.length === 0) missing.push(entry);
    for (const s of matching) {
      found.push({ name, path: s.path, lines: [s.startLine, s.endLine] });
    }
  }
  return { found, missing };
}

/** Finds each gold function (`path:Qualified.name`) in the index: its lines, or null. */
function locateFunctions(workspace: Workspace, functions: string[]): GoldFunction[] {
  const repo = workspace.repositories[0];
  return functions.map((entry) => {
    const at = entry.indexOf(":");
    const path = entry.slice(0, at);
    const name = entry.slice(at + 1);
    const found = workspace.withReader(repo, (reader) => {
      const row = reader.symbolsInFile(path).find((s) =>
        s.qualified === name || s.qualified.endsWith(`.${name}`)
      );
      return row ? [row.startLine, row.endLine] as [number, number] : null;
    }).value ?? null;
    return { name, path, lines: found };
  });
}

/** A symbol path without its module prefix: `src._pytest.python.Module.f` → `Module.f`. */
function localName(path: string, symbol: string): string {
  const module = path.replace(/\.[^./]+$/, "").replaceAll("/", ".");
  return symbol.startsWith(`${module}.`) ? symbol.slice(module.length + 1) : symbol;
}

/**
 * Makes the working tree for one repository and returns its rows in commit
 * order (oldest first), so each refresh applies one real diff.
 */
function prepareTree(source: string, tree: string, rows: EvalRow[]): EvalRow[] {
  const withCommit = rows.filter((row) => rowCommit(row) !== null);
  const reused = exists(join(tree, ".git"));
  if (withCommit.length === 0) {
    if (reused) return rows;
    // A directory (the shipped fixture set, or a working tree as it is now): copied and
    // committed once; a git working tree gives the files git would (no .git, no ignored files).
    Deno.mkdirSync(tree, { recursive: true });
    if (exists(join(source, ".git"))) {
      const listed = git(source, "ls-files", "-z", "-co", "--exclude-standard").split("\0");
      for (const path of listed.filter(Boolean)) copyFile(join(source, path), join(tree, path));
    } else {
      copyTree(source, tree);
    }
    git(tree, "init", "-q");
    git(tree, "add", "-A");
    git(
      tree,
      "-c",
      "user.email=eval@sextant",
      "-c",
      "user.name=eval",
      "commit",
      "-qm",
      "eval",
      "--allow-empty",
    );
    return rows;
  }
  if (!reused) git(Deno.cwd(), "clone", "-q", "--shared", "--no-checkout", source, tree);
  const times = new Map<string, number>();
  for (const row of withCommit) {
    const commit = rowCommit(row)!;
    if (!times.has(commit)) {
      times.set(commit, Number(git(tree, "show", "-s", "--format=%ct", commit).trim()));
    }
  }
  const time = (row: EvalRow) => times.get(rowCommit(row) ?? "") ?? 0;
  return [...rows].sort((a, b) => time(a) - time(b));
}

/** Copies one file (a symlink or a vanished file is skipped), creating its directory. */
function copyFile(from: string, to: string): void {
  try {
    if (!Deno.lstatSync(from).isFile) return;
    Deno.mkdirSync(join(to, ".."), { recursive: true });
    Deno.copyFileSync(from, to);
  } catch { /* vanished */ }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function copyTree(from: string, to: string): void {
  for (const entry of Deno.readDirSync(from)) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory) {
      if (entry.name === ".git") continue;
      Deno.mkdirSync(target, { recursive: true });
      copyTree(source, target);
    } else if (entry.isFile) {
      Deno.copyFileSync(source, target);
    }
  }
}

function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", {
    args: ["-c", "core.fsmonitor=false", ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout);
}
