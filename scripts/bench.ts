/**
 * `deno task bench` (SPEC §13): cold index, no-op refresh, one-file-change
 * refresh, query latency, peak RSS and target size, per tree, beside
 * universal-ctags and ripgrep when they are installed.
 *
 *   deno task bench [--path DIR]... [--synthetic LINES]... [--seed N]
 *                   [--runs N] [--json FILE] [--keep]
 *   deno task bench --clients N [--duration S] [--mix search,symbols,status] [--path DIR]...
 *
 * Concurrent mode (`--clients`) starts a real daemon on a copy of each tree,
 * indexes it, edits part of the copy, and runs N socket clients issuing the
 * mixed actions for S seconds while a refresh of the changed tree runs:
 * p50/p95/p99 per action, errors, throughput and the daemon's RSS.
 *
 * With neither `--path` nor `--synthetic`, measures `--synthetic 50000`.
 * Every tree gets a fresh temporary cache directory; the one-file-change step
 * appends a function to a source file and restores its bytes and mtime after.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { runAction } from "../src/actions/dispatch.ts";
import { DaemonClient, RpcFailure } from "../src/daemon/client.ts";
import type { RefreshReport } from "../src/indexer/refresh.ts";
import { type Repository, Workspace } from "../src/workspace/workspace.ts";
import { generateSyntheticCorpus } from "./_synthetic_corpus.ts";

interface BenchArgs {
  paths: string[];
  synthetic: number[];
  seed: number;
  runs: number;
  json: string | null;
  keep: boolean;
  /** Concurrent mode: socket clients, seconds, action mix. */
  clients: number | null;
  duration: number;
  mix: string[];
  /** Concurrent mode: the daemon's query Workers (its default when null). */
  queryWorkers: number | null;
}

/** A tree to measure, as asked for on the command line. */
type TargetSpec = { kind: "path"; directory: string } | { kind: "synthetic"; lines: number };

/** A tree ready to measure. */
interface Target {
  label: string;
  directory: string;
  kind: TargetSpec["kind"];
  synthetic?: { lines: number; seed: number; files: number; generated_lines: number };
  /** Removes what the bench created (synthetic corpora), unless kept. */
  cleanup: () => void;
}

interface LatencyStats {
  runs: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  mean_ms: number;
  max_ms: number;
  mean_hits: number;
}

interface OneFileRun {
  path: string;
  ms: number;
  parsed: number;
}

interface SextantResult {
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

interface PeerTiming {
  tool: string;
  version: string;
  median_ms: number;
  runs_ms: number[];
  detail: Record<string, unknown>;
}

interface PeerResults {
  /** Wall time of spawning a no-op process; included in every peer timing. */
  spawn_overhead_ms: number | null;
  ctags: PeerTiming | null;
  rg: PeerTiming | null;
  ratios: { cold_vs_ctags: number | null; search_p50_vs_rg: number | null };
}

interface TargetResult {
  label: string;
  kind: Target["kind"];
  root: string;
  synthetic?: Target["synthetic"];
  sextant: SextantResult;
  peers: PeerResults;
}

const NOOP_RUNS = 5;
const ONE_FILE_RUNS = 3;
const QUERY_COUNT = 10;
const RG_QUERIES = 3;
const RG_RUNS = 5;
const RSS_INTERVAL_MS = 50;
const MB = 1_000_000;

// ---------------------------------------------------------------- arguments

const USAGE = `usage: deno task bench [--path DIR]... [--synthetic LINES]... [--seed N]
                       [--runs N] [--json FILE] [--keep]
  --path DIR         a repository to measure (repeatable)
  --synthetic LINES  generate a synthetic corpus of about LINES lines (repeatable)
  --seed N           seed of synthetic corpora (default 1)
  --runs N           timed runs per query action (default 50)
  --json FILE        also write the results as JSON
  --keep             keep generated corpora (their paths are printed)
  --clients N        concurrent mode: N socket clients against a real daemon
  --duration S       concurrent mode: seconds of load (default 20)
  --mix A,B,...      concurrent mode: actions issued in turn (default search,symbols,status)
  --query-workers N  concurrent mode: the daemon's query Workers (default: the daemon's)
Without --path or --synthetic: --synthetic 50000.`;

function parseBenchArgs(argv: string[]): BenchArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      path: { type: "string", multiple: true },
      synthetic: { type: "string", multiple: true },
      seed: { type: "string" },
      runs: { type: "string" },
      json: { type: "string" },
      keep: { type: "boolean" },
      clients: { type: "string" },
      duration: { type: "string" },
      mix: { type: "string" },
      "query-workers": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    Deno.exit(0);
  }
  const paths = values.path ?? [];
  const synthetic = (values.synthetic ?? []).map((v) => positiveInt("--synthetic", v));
  if (paths.length === 0 && synthetic.length === 0) synthetic.push(50_000);
  return {
    paths,
    synthetic,
    seed: values.seed ? positiveInt("--seed", values.seed) : 1,
    runs: values.runs ? positiveInt("--runs", values.runs) : 50,
    json: values.json ?? null,
    keep: values.keep ?? false,
    clients: values.clients ? positiveInt("--clients", values.clients) : null,
    duration: values.duration ? positiveInt("--duration", values.duration) : 20,
    mix: (values.mix ?? "search,symbols,status").split(",").filter(Boolean),
    queryWorkers: values["query-workers"] === undefined ? null : Number(values["query-workers"]),
  };
}

function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} needs a positive integer`);
  return n;
}

function targetSpecs(args: BenchArgs): TargetSpec[] {
  return [
    ...args.paths.map((directory): TargetSpec => ({ kind: "path", directory })),
    ...args.synthetic.map((lines): TargetSpec => ({ kind: "synthetic", lines })),
  ];
}

/** Resolves a spec to a tree; synthetic corpora are generated here, just before measuring. */
function prepareTarget(spec: TargetSpec, args: BenchArgs): Target {
  if (spec.kind === "path") {
    return { label: spec.directory, directory: spec.directory, kind: "path", cleanup: () => {} };
  }
  const started = performance.now();
  const corpus = generateSyntheticCorpus({ lines: spec.lines, seed: args.seed });
  const seconds = (performance.now() - started) / 1000;
  log(`generated ${corpus.files} files, ${corpus.lines} lines in ${seconds.toFixed(1)}s`);
  return {
    label: `synthetic-${spec.lines}`,
    directory: corpus.root,
    kind: "synthetic",
    synthetic: {
      lines: spec.lines,
      seed: args.seed,
      files: corpus.files,
      generated_lines: corpus.lines,
    },
    cleanup: args.keep ? () => log(`kept ${corpus.root}`) : () => removeTree(corpus.root),
  };
}

// ---------------------------------------------------------------- statistics

function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

function median(samples: number[]): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function ratio(a: number, b: number | undefined): number | null {
  return b && b > 0 && Number.isFinite(a) ? round(a / b, 2) : null;
}

// ---------------------------------------------------------------- measurements

/** Samples the process RSS (main thread plus in-process Workers) at an interval. */
class RssSampler {
  #peak = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  start(intervalMs: number): void {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), intervalMs);
  }

  stop(): number {
    clearInterval(this.#timer);
    this.#sample();
    return this.#peak;
  }

  #sample(): void {
    this.#peak = Math.max(this.#peak, Deno.memoryUsage().rss);
  }
}

interface Session {
  workspace: Workspace;
  repo: Repository;
}

async function timedRefresh(session: Session): Promise<{ ms: number; report: RefreshReport }> {
  const started = performance.now();
  const report = await session.workspace.refresh(session.repo);
  return { ms: performance.now() - started, report };
}

async function measureCold(session: Session) {
  const baseline = Deno.memoryUsage().rss;
  const sampler = new RssSampler();
  sampler.start(RSS_INTERVAL_MS);
  let peakRss = 0;
  try {
    const timed = await timedRefresh(session);
    peakRss = sampler.stop();
    return { ...timed, baselineRss: baseline, peakRss };
  } finally {
    if (peakRss === 0) sampler.stop();
  }
}

async function measureNoop(session: Session): Promise<number[]> {
  const runs: number[] = [];
  for (let i = 0; i < NOOP_RUNS; i++) {
    const { ms, report } = await timedRefresh(session);
    if (report.parsed !== 0) log(`warning: no-op refresh ${i + 1} parsed ${report.parsed} files`);
    runs.push(ms);
  }
  return runs;
}

/** Source files to edit: TypeScript or Python, spread evenly over the sorted paths. */
function editableFiles(session: Session, count: number): string[] {
  const answer = session.workspace.withReader(
    session.repo,
    (reader) =>
      [...reader.fileTable().files.values()]
        .filter((file) => file.language === "typescript" || file.language === "python")
        .map((file) => file.path)
        .sort(),
  );
  return spread(answer.value ?? [], count);
}

/** `count` items at even intervals (deterministic); all of them when there are fewer. */
function spread<T>(items: T[], count: number): T[] {
  if (items.length <= count) return [...items];
  return Array.from(
    { length: count },
    (_, i) => items[Math.floor(((i + 0.5) * items.length) / count)],
  );
}

function appendedFunction(path: string, n: number): string {
  if (path.endsWith(".py")) {
    return `\n\ndef sextant_bench_appended_${n}(value):\n    return value * ${n + 2}\n`;
  }
  return `\nexport function sextantBenchAppended${n}(value: number): number {\n` +
    `  return value * ${n + 2};\n}\n`;
}

async function measureOneFile(session: Session): Promise<OneFileRun[]> {
  const runs: OneFileRun[] = [];
  const files = editableFiles(session, ONE_FILE_RUNS);
  for (const [n, path] of files.entries()) {
    const full = join(session.repo.root, path);
    const original = Deno.readFileSync(full);
    const stat = Deno.statSync(full);
    try {
      Deno.writeTextFileSync(full, appendedFunction(path, n), { append: true });
      const { ms, report } = await timedRefresh(session);
      runs.push({ path, ms: round(ms), parsed: report.parsed });
    } finally {
      Deno.writeFileSync(full, original);
      if (stat.atime && stat.mtime) Deno.utimeSync(full, stat.atime, stat.mtime);
    }
    await session.workspace.refresh(session.repo); // restore the target, untimed
  }
  return runs;
}

/** Query identifiers: distinct definition names spread over the sorted symbol table. */
function pickQueries(session: Session, count: number): string[] {
  const answer = session.workspace.withReader(
    session.repo,
    (reader) =>
      reader.symbolsOfKinds(["function", "class", "method", "interface"]).map((s) => s.name),
  );
  const names = [...new Set(answer.value ?? [])]
    .filter((name) => name.length >= 6 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .sort();
  return spread(names, count);
}

interface QuerySample {
  query: string;
  ms: number;
  hits: number;
}

async function measureQueries(options: {
  session: Session;
  action: "search" | "symbols";
  queries: string[];
  runs: number;
}): Promise<QuerySample[]> {
  const { session, action, queries, runs } = options;
  const run = (query: string) => runAction(session.workspace, action, { query });
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

function latencyStats(samples: QuerySample[]): LatencyStats {
  const ms = samples.map((s) => s.ms);
  const total = ms.reduce((a, b) => a + b, 0);
  return {
    runs: ms.length,
    p50_ms: round(percentile(ms, 50), 3),
    p95_ms: round(percentile(ms, 95), 3),
    p99_ms: round(percentile(ms, 99), 3),
    mean_ms: round(total / Math.max(1, ms.length), 3),
    max_ms: round(Math.max(...ms), 3),
    mean_hits: round(samples.reduce((a, s) => a + s.hits, 0) / Math.max(1, samples.length), 1),
  };
}

function fileSize(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}

async function measureSextant(session: Session, args: BenchArgs): Promise<SextantResult> {
  log("  cold index…");
  const cold = await measureCold(session);
  log(`  cold index: ${(cold.ms / 1000).toFixed(2)}s; no-op refresh ×${NOOP_RUNS}…`);
  const noop = await measureNoop(session);
  log(`  one-file change ×${ONE_FILE_RUNS}…`);
  const oneFile = await measureOneFile(session);
  const queries = pickQueries(session, QUERY_COUNT);
  log(`  query latency (${queries.length} queries, ${args.runs} runs per action)…`);
  const search = await measureQueries({ session, action: "search", queries, runs: args.runs });
  const symbols = await measureQueries({ session, action: "symbols", queries, runs: args.runs });
  const rgQueries = new Set(queries.slice(0, RG_QUERIES));
  const dbPath = session.repo.location.databasePath;
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

// ---------------------------------------------------------------- peers

async function toolVersion(tool: string): Promise<string | null> {
  try {
    const out = await new Deno.Command(tool, {
      args: ["--version"],
      stdout: "piped",
      stderr: "null",
    })
      .output();
    if (!out.success) return null;
    return new TextDecoder().decode(out.stdout).split("\n")[0].trim();
  } catch {
    return null; // not installed
  }
}

/** Wall time of one command run in `cwd`, output discarded. */
async function timeCommand(
  options: { tool: string; args: string[]; cwd: string },
): Promise<number> {
  const started = performance.now();
  await new Deno.Command(options.tool, {
    args: options.args,
    cwd: options.cwd,
    stdout: "null",
    stderr: "null",
  }).output();
  return performance.now() - started;
}

async function measureCtags(root: string): Promise<PeerTiming | null> {
  const version = await toolVersion("ctags");
  if (!version) return null;
  if (!version.includes("Universal Ctags")) log(`  note: ctags is not universal-ctags: ${version}`);
  const tagsFile = Deno.makeTempFileSync({ prefix: "sextant-bench-", suffix: ".tags" });
  try {
    const ms = await timeCommand({ tool: "ctags", args: ["-R", "-f", tagsFile, "."], cwd: root });
    const text = Deno.readTextFileSync(tagsFile);
    const tags = text.split("\n").filter((line) => line !== "" && !line.startsWith("!_")).length;
    return {
      tool: "ctags",
      version,
      median_ms: round(ms),
      runs_ms: [round(ms)],
      detail: { command: `ctags -R -f ${tagsFile} .`, tags },
    };
  } finally {
    Deno.removeSync(tagsFile);
  }
}

async function measureRg(root: string, identifiers: string[]): Promise<PeerTiming | null> {
  const version = await toolVersion("rg");
  if (!version || identifiers.length === 0) return null;
  const runs: number[] = [];
  const perQuery: Record<string, number> = {};
  for (const ident of identifiers) {
    const own: number[] = [];
    for (let i = 0; i < RG_RUNS; i++) {
      own.push(await timeCommand({ tool: "rg", args: ["-c", "-F", "--", ident], cwd: root }));
    }
    perQuery[ident] = round(median(own), 3);
    runs.push(...own);
  }
  return {
    tool: "rg",
    version,
    median_ms: round(median(runs), 3),
    runs_ms: runs.map((ms) => round(ms, 3)),
    detail: { command: "rg -c -F IDENT", per_query_median_ms: perQuery },
  };
}

/** Median wall time of spawning `true`: the floor under every peer timing. */
async function spawnOverhead(root: string): Promise<number | null> {
  const runs: number[] = [];
  try {
    for (let i = 0; i < RG_RUNS; i++) {
      runs.push(await timeCommand({ tool: "true", args: [], cwd: root }));
    }
  } catch {
    return null;
  }
  return round(median(runs), 3);
}

async function measurePeers(root: string, sextant: SextantResult): Promise<PeerResults> {
  log("  peers: ctags, rg…");
  const ctags = await measureCtags(root);
  const rg = await measureRg(root, sextant.queries.slice(0, RG_QUERIES));
  return {
    spawn_overhead_ms: await spawnOverhead(root),
    ctags,
    rg,
    ratios: {
      cold_vs_ctags: ratio(sextant.cold_s * 1000, ctags?.median_ms),
      search_p50_vs_rg: ratio(sextant.search.p50_ms, rg?.median_ms),
    },
  };
}

// ---------------------------------------------------------------- per target

async function benchTarget(target: Target, args: BenchArgs): Promise<TargetResult> {
  const { root, sextant } = await benchSextant(target, args);
  // Peers run after the workspace is closed, so idle Workers and readers cost them nothing.
  const peers = await measurePeers(root, sextant);
  const result: TargetResult = { label: target.label, kind: target.kind, root, sextant, peers };
  if (target.synthetic) result.synthetic = target.synthetic;
  return result;
}

async function benchSextant(
  target: Target,
  args: BenchArgs,
): Promise<{ root: string; sextant: SextantResult }> {
  const cache = Deno.makeTempDirSync({ prefix: "sextant-bench-cache-" });
  const workspace = await Workspace.open({ directory: target.directory, cacheDirectory: cache });
  try {
    const session: Session = { workspace, repo: workspace.repositories[0] };
    log(`${target.label}: ${session.repo.root}`);
    return { root: session.repo.root, sextant: await measureSextant(session, args) };
  } finally {
    workspace.close();
    removeTree(cache);
  }
}

// ---------------------------------------------------------------- output

function renderTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join("  ");
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)]
    .join("\n");
}

function fmt(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  return value.toLocaleString("en-US", { maximumFractionDigits: digits });
}

const METRIC_ROWS: [string, (s: SextantResult) => string][] = [
  ["files", (s) => fmt(s.files, 0)],
  ["MB", (s) => fmt(s.mb)],
  ["lines", (s) => fmt(s.lines, 0)],
  ["cold index s", (s) => fmt(s.cold_s, 2)],
  ["files/s", (s) => fmt(s.files_per_s, 0)],
  ["MB/s", (s) => fmt(s.mb_per_s)],
  ["lines/s", (s) => fmt(s.lines_per_s, 0)],
  ["no-op refresh ms (median 5)", (s) => fmt(s.noop_ms, 1)],
  ["one-file refresh ms (median 3)", (s) => fmt(s.one_file_ms, 1)],
  ["search p50/p95/p99 ms", (s) => latencyCell(s.search)],
  ["symbols p50/p95/p99 ms", (s) => latencyCell(s.symbols)],
  ["peak RSS MB (cold index)", (s) => fmt(s.peak_rss_mb, 0)],
  ["target size MB (db + wal)", (s) => fmt(s.target_mb)],
];

function latencyCell(stats: LatencyStats): string {
  return `${fmt(stats.p50_ms)} / ${fmt(stats.p95_ms)} / ${fmt(stats.p99_ms)}`;
}

function sextantTable(results: TargetResult[]): string {
  const headers = ["sextant", ...results.map((r) => r.label)];
  const rows = METRIC_ROWS.map(([name, cell]) => [name, ...results.map((r) => cell(r.sextant))]);
  return renderTable(headers, rows);
}

function peerTable(results: TargetResult[]): string {
  const headers = [
    "target",
    "sextant cold s",
    "ctags -R s",
    "cold/ctags",
    "sextant search p50 ms",
    "rg -c p50 ms",
    "search/rg",
  ];
  const rows = results.map((r) => [
    r.label,
    fmt(r.sextant.cold_s, 2),
    r.peers.ctags ? fmt(r.peers.ctags.median_ms / 1000, 2) : "n/a",
    fmt(r.peers.ratios.cold_vs_ctags) + (r.peers.ratios.cold_vs_ctags ? "x" : ""),
    fmt(r.sextant.search.p50_ms),
    r.peers.rg ? fmt(r.peers.rg.median_ms) : "n/a",
    fmt(r.peers.ratios.search_p50_vs_rg) + (r.peers.ratios.search_p50_vs_rg ? "x" : ""),
  ]);
  return renderTable(headers, rows);
}

function printReport(results: TargetResult[]): void {
  console.log("");
  console.log(sextantTable(results));
  console.log("");
  console.log(peerTable(results));
  console.log("");
  for (const r of results) {
    console.log(`${r.label}: queries ${r.sextant.queries.join(", ")}`);
    console.log(
      `  rg identifiers ${r.sextant.queries.slice(0, RG_QUERIES).join(", ")}; ` +
        `sextant search p50 on those ${fmt(r.sextant.search_p50_rg_queries_ms)} ms; ` +
        `peer times include ${fmt(r.peers.spawn_overhead_ms)} ms process spawn`,
    );
  }
}

function log(message: string): void {
  console.error(message);
}

function removeTree(path: string): void {
  try {
    Deno.removeSync(path, { recursive: true });
  } catch { /* already gone */ }
}

// ---------------------------------------------------------------- concurrent clients

interface ConcurrentResult {
  label: string;
  root: string;
  clients: number;
  duration_s: number;
  files: number;
  lines: number;
  cold_index_s: number;
  changed_files: number;
  refresh: { ms: number; parsed: number; plan: Record<string, number> } | null;
  actions: Record<string, LatencyStats & { errors: number; during_refresh: number }>;
  /** The same, over only the answers to requests sent while the refresh ran. */
  actions_during_refresh: Record<string, LatencyStats>;
  requests: number;
  errors: number;
  error_samples: string[];
  throughput_rps: number;
  daemon_peak_rss_mb: number;
  daemon_max_rss_during_load_mb: number;
  daemon_rss_after_mb: number;
  /** The daemon's answer-cache counters at the end (repeated identical queries). */
  daemon_cache: { hits: number; misses: number } | null;
  /** The machine's 1-minute load average before and after the load (other work included). */
  load_average: [number | null, number | null];
  cpus: number;
}

function loadAverage(): number | null {
  try {
    return Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
  } catch {
    return null;
  }
}

/** The daemon's resident set: current and peak (VmHWM), in bytes. */
function processRss(pid: number): { rss: number; peak: number } {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) * 1024;
    return { rss: kb("VmRSS"), peak: kb("VmHWM") };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

/** A private copy of the tree the bench may edit: a local clone for a git work tree. */
async function copyTree(source: string, destination: string): Promise<void> {
  let isGit = false;
  try {
    Deno.statSync(join(source, ".git"));
    isGit = true;
  } catch { /* plain directory */ }
  const command = isGit
    ? new Deno.Command("git", { args: ["clone", "-q", "--local", source, destination] })
    : new Deno.Command("cp", { args: ["-a", source, destination] });
  const out = await command.output();
  if (!out.success) {
    throw new Error(`cannot copy ${source}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

async function benchConcurrent(target: Target, args: BenchArgs): Promise<ConcurrentResult> {
  const work = Deno.makeTempDirSync({ prefix: "sextant-bench-concurrent-" });
  const tree = join(work, "tree");
  const cache = join(work, "cache");
  const socket = join(work, "run", "d.sock");
  log(`${target.label}: copying to ${tree}…`);
  await copyTree(target.directory, tree);
  const daemon = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "--allow-all",
      new URL("../src/main.ts", import.meta.url).pathname,
      "daemon",
      "--quiet",
      ...(args.queryWorkers === null ? [] : ["--query-workers", String(args.queryWorkers)]),
      "--socket",
      socket,
      "--workspace",
      tree,
    ],
    env: { SEXTANT_CACHE_DIR: cache },
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  try {
    const deadline = Date.now() + 60_000;
    let control: DaemonClient | null = null;
    while (!control && Date.now() < deadline) {
      control = await DaemonClient.connect(socket).catch(() => null);
      if (!control) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!control) throw new Error("the daemon did not start");
    const hello = await control.request("initialize", { agent: "bench" }) as {
      server: { pid: number };
    };
    const pid = hello.server.pid;
    log("  cold index through the daemon…");
    const coldStarted = performance.now();
    const cold = await control.request("refresh", {}) as {
      data: { reports: { files: number; lines: number }[] };
    };
    const coldMs = performance.now() - coldStarted;
    const workspace = await Workspace.open({ directory: tree, cacheDirectory: cache });
    const session = { workspace, repo: workspace.repositories[0] };
    // Many distinct identifiers, so that the answer cache rarely answers (its hits are reported).
    const queries = pickQueries(session, 2000);
    const changed = editableFiles(
      session,
      Math.max(200, Math.round(cold.data.reports[0].files / 10)),
    );
    workspace.close();
    for (const [n, path] of changed.entries()) {
      Deno.writeTextFileSync(join(tree, path), appendedFunction(path, n), { append: true });
    }
    log(
      `  ${changed.length} files changed; ${args.clients} clients × ${args.duration}s of ` +
        `${args.mix.join("/")} during the refresh…`,
    );
    const clients = await Promise.all(
      Array.from({ length: args.clients! }, () => DaemonClient.connect(socket)),
    );
    const samples = new Map<
      string,
      { ms: number[]; duringMs: number[]; errors: number; during: number }
    >(
      args.mix.map((action) => [action, { ms: [], duringMs: [], errors: 0, during: 0 }]),
    );
    const errorSamples: string[] = [];
    let refreshing = true;
    let maxRss = 0;
    const rssTimer = setInterval(() => {
      maxRss = Math.max(maxRss, processRss(pid).rss);
    }, RSS_INTERVAL_MS);
    const loadStarted = performance.now();
    const stopAt = loadStarted + args.duration * 1000;
    const refreshStarted = performance.now();
    const refresh = control.request("refresh", {}).then((answer) => {
      refreshing = false;
      const report = (answer as { data: { reports: RefreshReport[] } }).data.reports[0];
      return {
        ms: round(performance.now() - refreshStarted, 1),
        parsed: report.parsed,
        plan: report.plan,
      };
    }).catch((error) => {
      refreshing = false;
      errorSamples.push(`refresh: ${(error as Error).message}`);
      return null;
    });
    const paramsFor = (action: string, i: number): Record<string, unknown> => {
      const query = queries[(i * 7919) % Math.max(1, queries.length)] ?? "main";
      if (action === "status") return {};
      if (action === "search" || action === "symbols") return { query, limit: 10 };
      if (action === "grep") return { pattern: `${query}($$$ARGS)` };
      return { symbol: query };
    };
    const loadBefore = loadAverage();
    let issued = 0;
    await Promise.all(clients.map(async (client) => {
      while (performance.now() < stopAt) {
        const i = issued++;
        const action = args.mix[i % args.mix.length];
        const bucket = samples.get(action)!;
        const during = refreshing;
        const started = performance.now();
        try {
          await client.request(action, paramsFor(action, i));
          bucket.ms.push(performance.now() - started);
          if (during) {
            bucket.during++;
            bucket.duringMs.push(performance.now() - started);
          }
        } catch (error) {
          bucket.errors++;
          if (errorSamples.length < 10) {
            errorSamples.push(
              `${action}: ${error instanceof RpcFailure ? error.code : ""} ${
                (error as Error).message
              }`,
            );
          }
        }
      }
    }));
    const loadAfter = loadAverage();
    const loadMs = performance.now() - loadStarted;
    const refreshResult = await refresh;
    clearInterval(rssTimer);
    const rss = processRss(pid);
    const finalStatus = await control.request("status").catch(() => null) as
      | { data: { daemon: { cache: { hits: number; misses: number } } } }
      | null;
    for (const client of clients) client.close();
    control.close();
    const actions: ConcurrentResult["actions"] = {};
    const actionsDuring: ConcurrentResult["actions_during_refresh"] = {};
    let requests = 0;
    let errors = 0;
    for (const [action, bucket] of samples) {
      actions[action] = {
        ...latencyStats(bucket.ms.map((ms) => ({ query: "", ms, hits: 0 }))),
        errors: bucket.errors,
        during_refresh: bucket.during,
      };
      actionsDuring[action] = latencyStats(
        bucket.duringMs.map((ms) => ({ query: "", ms, hits: 0 })),
      );
      requests += bucket.ms.length + bucket.errors;
      errors += bucket.errors;
    }
    return {
      label: target.label,
      root: target.directory,
      clients: args.clients!,
      duration_s: round(loadMs / 1000, 1),
      files: cold.data.reports[0].files,
      lines: cold.data.reports[0].lines,
      cold_index_s: round(coldMs / 1000, 2),
      changed_files: changed.length,
      refresh: refreshResult,
      actions,
      actions_during_refresh: actionsDuring,
      requests,
      errors,
      error_samples: errorSamples,
      throughput_rps: round(requests / (loadMs / 1000), 1),
      daemon_peak_rss_mb: round(rss.peak / MB, 0),
      daemon_max_rss_during_load_mb: round(maxRss / MB, 0),
      daemon_rss_after_mb: round(rss.rss / MB, 0),
      daemon_cache: finalStatus?.data.daemon.cache ?? null,
      load_average: [loadBefore, loadAfter],
      cpus: navigator.hardwareConcurrency,
    };
  } finally {
    try {
      daemon.kill("SIGTERM");
    } catch { /* gone */ }
    await daemon.status;
    if (!args.keep) removeTree(work);
  }
}

function printConcurrent(results: ConcurrentResult[]): void {
  for (const r of results) {
    console.log("");
    console.log(
      `${r.label}: ${fmt(r.files, 0)} files, ${
        fmt(r.lines, 0)
      } lines; cold index ${r.cold_index_s}s; ` +
        `${r.clients} clients for ${r.duration_s}s while refreshing ${r.changed_files} changed files` +
        (r.refresh ? ` (refresh ${fmt(r.refresh.ms / 1000, 2)}s, parsed ${r.refresh.parsed})` : ""),
    );
    const rows = Object.entries(r.actions).map(([action, stats]) => {
      const during = r.actions_during_refresh[action];
      return [
        action,
        fmt(stats.runs, 0),
        fmt(stats.p50_ms),
        fmt(stats.p95_ms),
        fmt(stats.p99_ms),
        fmt(stats.max_ms),
        fmt(stats.errors, 0),
        fmt(during.runs, 0),
        during.runs ? `${fmt(during.p50_ms)} / ${fmt(during.p99_ms)}` : "n/a",
      ];
    });
    console.log(renderTable(
      [
        "action",
        "answers",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "max ms",
        "errors",
        "during refresh",
        "p50/p99 then",
      ],
      rows,
    ));
    console.log(
      `requests ${r.requests}, errors ${r.errors}, throughput ${r.throughput_rps} req/s; ` +
        `daemon RSS peak ${r.daemon_peak_rss_mb} MB (VmHWM, includes the cold index), ` +
        `max during load ${r.daemon_max_rss_during_load_mb} MB, after ${r.daemon_rss_after_mb} MB; ` +
        `answer cache ${r.daemon_cache?.hits ?? "?"} hits / ${
          r.daemon_cache?.misses ?? "?"
        } misses`,
    );
    console.log(
      `machine: ${r.cpus} CPUs, 1-min load average ${r.load_average[0]} before / ` +
        `${r.load_average[1]} after the load (other processes included)`,
    );
    for (const sample of r.error_samples) console.log(`  error: ${sample}`);
  }
}

// ---------------------------------------------------------------- main

async function main(argv: string[]): Promise<void> {
  const args = parseBenchArgs(argv);
  const startedAt = new Date().toISOString();
  if (args.clients) {
    const concurrent: ConcurrentResult[] = [];
    for (const spec of targetSpecs(args)) {
      const target = prepareTarget(spec, args);
      try {
        concurrent.push(await benchConcurrent(target, args));
      } finally {
        target.cleanup();
      }
    }
    printConcurrent(concurrent);
    if (args.json) {
      Deno.writeTextFileSync(
        args.json,
        JSON.stringify(
          { tool: "sextant-bench", mode: "concurrent", started_at: startedAt, targets: concurrent },
          null,
          2,
        ) + "\n",
      );
      log(`wrote ${args.json}`);
    }
    return;
  }
  const results: TargetResult[] = [];
  for (const spec of targetSpecs(args)) {
    const target = prepareTarget(spec, args);
    try {
      results.push(await benchTarget(target, args));
    } finally {
      target.cleanup();
    }
  }
  printReport(results);
  if (args.json) writeJson({ path: args.json, startedAt, results });
}

function writeJson(options: { path: string; startedAt: string; results: TargetResult[] }): void {
  const { path, startedAt, results } = options;
  const document = {
    tool: "sextant-bench",
    format: 1,
    started_at: startedAt,
    deno: Deno.version.deno,
    os: Deno.build.os,
    arch: Deno.build.arch,
    cpus: navigator.hardwareConcurrency,
    targets: results,
  };
  Deno.writeTextFileSync(path, JSON.stringify(document, null, 2) + "\n");
  log(`wrote ${path}`);
}

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (error) {
    console.error(`bench: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
