/** What `deno task bench` prints: tables on stdout, progress on stderr, and the JSON document. */
import type { Target } from "./_bench_corpus.ts";
import type { ConcurrentResult } from "./_bench_load.ts";
import type { PeerResults } from "./_bench_peers.ts";
import { NOOP_RUNS, ONE_FILE_RUNS, RG_QUERIES, type SextantResult } from "./_bench_sextant.ts";
import type { LatencyStats } from "./_bench_stats.ts";

/** One measured tree: Sextant's figures and its peers'. */
export interface TargetResult {
  label: string;
  kind: Target["kind"];
  root: string;
  synthetic?: Target["synthetic"];
  sextant: SextantResult;
  peers: PeerResults;
}

/** Progress goes to stderr, so stdout holds only the report. */
export function log(message: string): void {
  console.error(message);
}

export function printReport(results: TargetResult[]): void {
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

export function printConcurrent(results: ConcurrentResult[]): void {
  for (const r of results) {
    console.log("");
    console.log(
      `${r.label}: ${fmt(r.files, 0)} files, ${
        fmt(r.lines, 0)
      } lines; cold index ${r.cold_index_s}s; ` +
        `${r.clients} clients for ${r.duration_s}s while refreshing ${r.changed_files} changed files` +
        (r.refresh ? ` (refresh ${fmt(r.refresh.ms / 1000, 2)}s, parsed ${r.refresh.parsed})` : ""),
    );
    console.log(concurrentTable(r));
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

/** Writes the results of the default mode with the machine they were measured on. */
export function writeJson(
  options: { path: string; startedAt: string; results: TargetResult[] },
): void {
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

/** Writes the results of the concurrent mode. */
export function writeConcurrentJson(
  options: { path: string; startedAt: string; results: ConcurrentResult[] },
): void {
  const { path, startedAt, results } = options;
  Deno.writeTextFileSync(
    path,
    JSON.stringify(
      { tool: "sextant-bench", mode: "concurrent", started_at: startedAt, targets: results },
      null,
      2,
    ) + "\n",
  );
  log(`wrote ${path}`);
}

const METRIC_ROWS: [string, (s: SextantResult) => string][] = [
  ["files", (s) => fmt(s.files, 0)],
  ["MB", (s) => fmt(s.mb)],
  ["lines", (s) => fmt(s.lines, 0)],
  ["cold index s", (s) => fmt(s.cold_s, 2)],
  ["files/s", (s) => fmt(s.files_per_s, 0)],
  ["MB/s", (s) => fmt(s.mb_per_s)],
  ["lines/s", (s) => fmt(s.lines_per_s, 0)],
  [`no-op refresh ms (median ${NOOP_RUNS})`, (s) => fmt(s.noop_ms, 1)],
  [`one-file refresh ms (median ${ONE_FILE_RUNS})`, (s) => fmt(s.one_file_ms, 1)],
  ["search p50/p95/p99 ms", (s) => latencyCell(s.search)],
  ["symbols p50/p95/p99 ms", (s) => latencyCell(s.symbols)],
  ["peak RSS MB (cold index)", (s) => fmt(s.peak_rss_mb, 0)],
  ["target size MB (db + wal)", (s) => fmt(s.target_mb)],
];

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

function concurrentTable(r: ConcurrentResult): string {
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
  return renderTable(
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
  );
}

function latencyCell(stats: LatencyStats): string {
  return `${fmt(stats.p50_ms)} / ${fmt(stats.p95_ms)} / ${fmt(stats.p99_ms)}`;
}

/** Columns padded to their widest cell: the first left-aligned, the rest right-aligned. */
export function renderTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join("  ");
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)]
    .join("\n");
}

export function fmt(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  return value.toLocaleString("en-US", { maximumFractionDigits: digits });
}
