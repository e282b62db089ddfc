/**
 * Sextant measured in this process on one tree: cold index (time, peak RSS),
 * no-op refresh, one-file-change refresh, query latency per action, and the
 * target's size on disk. Every tree gets a fresh temporary cache directory;
 * the one-file change appends a function to a source file and restores its
 * bytes and mtime after.
 */
import { join } from "node:path";
import { runAction } from "../src/actions/dispatch.ts";
import type { RefreshReport } from "../src/indexer/refresh.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import {
  appendedFunction,
  editableFiles,
  type IndexedRepo,
  pickQueries,
  removeTree,
  type Target,
} from "./_bench_corpus.ts";
import { log } from "./_bench_report.ts";
import {
  fileSize,
  type LatencyStats,
  latencyStats,
  MB,
  median,
  percentile,
  type QuerySample,
  round,
  RSS_INTERVAL_MS,
  RssSampler,
} from "./_bench_stats.ts";

export const NOOP_RUNS = 5;
export const ONE_FILE_RUNS = 3;
const QUERY_COUNT = 10;
/** How many of the picked identifiers are also given to ripgrep (the first ones). */
export const RG_QUERIES = 3;

export interface OneFileRun {
  path: string;
  ms: number;
  parsed: number;
}

export interface SextantResult {
  files: number;
  bytes: number;
  mb: number;
  lines: number;
  cold_s: number;
  files_per_s: number;
  mb_per_s: number;
  lines_per_s: number;
  cold_timings_ms: RefreshReport["timings_ms"];
  cold_errors: number;
  baseline_rss_mb: number;
  peak_rss_mb: number;
  noop_ms: number;
  noop_runs_ms: number[];
  one_file_ms: number;
  one_file_runs: OneFileRun[];
  queries: string[];
  search: LatencyStats;
  symbols: LatencyStats;
  /** Search p50 over only the identifiers also given to ripgrep. */
  search_p50_rg_queries_ms: number;
  target_db_bytes: number;
  target_wal_bytes: number;
  target_mb: number;
}

/** Indexes the tree in a fresh cache and measures it; the workspace is closed after. */
export async function benchSextant(
  target: Target,
  options: { runs: number },
): Promise<{ root: string; sextant: SextantResult }> {
  const cache = Deno.makeTempDirSync({ prefix: "sextant-bench-cache-" });
  const workspace = await Workspace.open({ directory: target.directory, cacheDirectory: cache });
  try {
    const indexed: IndexedRepo = { workspace, repo: workspace.repositories[0] };
    log(`${target.label}: ${indexed.repo.root}`);
    return { root: indexed.repo.root, sextant: await measureSextant(indexed, options) };
  } finally {
    workspace.close();
    removeTree(cache);
  }
}

async function measureSextant(
  indexed: IndexedRepo,
  options: { runs: number },
): Promise<SextantResult> {
  log("  cold index…");
  const cold = await measureCold(indexed);
  log(`  cold index: ${(cold.ms / 1000).toFixed(2)}s; no-op refresh ×${NOOP_RUNS}…`);
  const noop = await measureNoop(indexed);
  log(`  one-file change ×${ONE_FILE_RUNS}…`);
  const oneFile = await measureOneFile(indexed);
  const queries = pickQueries(indexed, QUERY_COUNT);
  log(`  query latency (${queries.length} queries, ${options.runs} runs per action)…`);
  const timed = (action: string) =>
    measureQueries({
      indexed,
      action,
      queries,
      params: (query) => ({ query }),
      runs: options.runs,
    });
  const search = await timed("search");
  const symbols = await timed("symbols");
  const rgQueries = new Set(queries.slice(0, RG_QUERIES));
  const dbPath = indexed.repo.location.databasePath;
  return summarise({
    report: cold.report,
    coldMs: cold.ms,
    baselineRss: cold.baselineRss,
    peakRss: cold.peakRss,
    noop,
    oneFile,
    queries,
    search,
    symbols,
    searchRgQueries: search.filter((s) => rgQueries.has(s.query)).map((s) => s.ms),
    dbBytes: fileSize(dbPath),
    walBytes: fileSize(`${dbPath}-wal`),
  });
}

async function timedRefresh(indexed: IndexedRepo): Promise<{ ms: number; report: RefreshReport }> {
  const started = performance.now();
  const report = await indexed.workspace.refresh(indexed.repo);
  return { ms: performance.now() - started, report };
}

async function measureCold(indexed: IndexedRepo) {
  const baseline = Deno.memoryUsage().rss;
  const sampler = new RssSampler();
  sampler.start(RSS_INTERVAL_MS);
  let peakRss = 0;
  try {
    const timed = await timedRefresh(indexed);
    peakRss = sampler.stop();
    return { ...timed, baselineRss: baseline, peakRss };
  } finally {
    if (peakRss === 0) sampler.stop();
  }
}

async function measureNoop(indexed: IndexedRepo): Promise<number[]> {
  const runs: number[] = [];
  for (let i = 0; i < NOOP_RUNS; i++) {
    const { ms, report } = await timedRefresh(indexed);
    if (report.parsed !== 0) log(`warning: no-op refresh ${i + 1} parsed ${report.parsed} files`);
    runs.push(ms);
  }
  return runs;
}

async function measureOneFile(indexed: IndexedRepo): Promise<OneFileRun[]> {
  const runs: OneFileRun[] = [];
  const files = editableFiles(indexed, ONE_FILE_RUNS);
  for (const [n, path] of files.entries()) {
    const full = join(indexed.repo.root, path);
    const original = Deno.readFileSync(full);
    const stat = Deno.statSync(full);
    try {
      Deno.writeTextFileSync(full, appendedFunction(path, n), { append: true });
      const { ms, report } = await timedRefresh(indexed);
      runs.push({ path, ms: round(ms), parsed: report.parsed });
    } finally {
      Deno.writeFileSync(full, original);
      if (stat.atime && stat.mtime) Deno.utimeSync(full, stat.atime, stat.mtime);
    }
    await indexed.workspace.refresh(indexed.repo); // restore the target, untimed
  }
  return runs;
}

/** `runs` timed calls of one action over the identifiers in turn, after one warm-up each. */
async function measureQueries(options: {
  indexed: IndexedRepo;
  action: string;
  queries: string[];
  params: (query: string) => Record<string, unknown>;
  runs: number;
}): Promise<QuerySample[]> {
  const { indexed, action, queries, runs } = options;
  const run = (query: string) => runAction(indexed.workspace, action, options.params(query));
  for (const query of queries) await run(query); // warm-up: reader open, statement cache
  const samples: QuerySample[] = [];
  for (let i = 0; i < runs; i++) {
    const query = queries[i % queries.length];
    const started = performance.now();
    const envelope = await run(query);
    samples.push({ query, ms: performance.now() - started, hits: envelope.results.length });
  }
  return samples;
}

function summarise(m: {
  report: RefreshReport;
  coldMs: number;
  baselineRss: number;
  peakRss: number;
  noop: number[];
  oneFile: OneFileRun[];
  queries: string[];
  search: QuerySample[];
  symbols: QuerySample[];
  searchRgQueries: number[];
  dbBytes: number;
  walBytes: number;
}): SextantResult {
  const seconds = m.coldMs / 1000;
  const { files, bytes, lines } = m.report;
  return {
    files,
    bytes,
    mb: round(bytes / MB),
    lines,
    cold_s: round(seconds, 3),
    files_per_s: round(files / seconds, 0),
    mb_per_s: round(bytes / MB / seconds),
    lines_per_s: round(lines / seconds, 0),
    cold_timings_ms: m.report.timings_ms,
    cold_errors: m.report.errors,
    baseline_rss_mb: round(m.baselineRss / MB, 1),
    peak_rss_mb: round(m.peakRss / MB, 1),
    noop_ms: round(median(m.noop)),
    noop_runs_ms: m.noop.map((ms) => round(ms)),
    one_file_ms: round(median(m.oneFile.map((r) => r.ms))),
    one_file_runs: m.oneFile,
    queries: m.queries,
    search: latencyStats(m.search),
    symbols: latencyStats(m.symbols),
    search_p50_rg_queries_ms: round(percentile(m.searchRgQueries, 50), 3),
    target_db_bytes: m.dbBytes,
    target_wal_bytes: m.walBytes,
    target_mb: round((m.dbBytes + m.walBytes) / MB),
  };
}
