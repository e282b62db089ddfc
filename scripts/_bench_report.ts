/** What `deno task bench` prints: tables on stdout, progress on stderr, and the JSON document. */
import { AGENT_ACTIONS, IMPACT_DEPTH } from "./_bench_actions.ts";
import type { Figures } from "./_bench_figures.ts";
import type { DaemonResult, LoadPhase } from "./_bench_load.ts";
import type { TargetResult } from "./_bench_sextant.ts";
import type { Growth } from "./_bench_scale.ts";

/** Progress goes to stderr, so stdout holds only the report. */
export function log(message: string): void {
  console.error(message);
}

/** The JSON document of one run; `format` changes when a field changes meaning. */
export interface BenchDocument {
  tool: "sextant-bench";
  format: 2;
  mode: "targets" | "scale";
  started_at: string;
  finished_at: string;
  argv: string[];
  machine: {
    deno: string;
    os: string;
    arch: string;
    cpus: number;
    load_average_start: number | null;
    load_average_end: number | null;
  };
  targets: TargetResult[];
  growth?: Growth;
}

export function writeJson(path: string, document: BenchDocument): void {
  Deno.writeTextFileSync(path, JSON.stringify(document, null, 2) + "\n");
  log(`wrote ${path}`);
}

/** Every table of a run of one or more targets. */
export function printTargets(results: TargetResult[]): void {
  console.log("");
  console.log(issueTable(results));
  for (const r of results) {
    console.log("");
    console.log(`${r.label}: every action alone, warm, in this process`);
    console.log(actionTable(r));
    console.log("");
    console.log(`${r.label}: structural grep (every match, cursors followed) beside ast-grep`);
    console.log(grepTable(r));
    if (r.daemon) {
      console.log("");
      console.log(`${r.label}: ${daemonSummary(r.daemon)}`);
      console.log(daemonTable(r.daemon));
    }
    for (const note of r.notes) console.log(`  note: ${note}`);
  }
}

/** Issue 12's table, one column per target. */
function issueTable(results: TargetResult[]): string {
  const rows: [string, (r: TargetResult, f: Figures) => string][] = [
    [
      "corpus",
      (r) =>
        `${fmt(r.corpus.files, 0)} files, ${fmt(r.corpus.lines, 0)} lines, ${fmt(r.corpus.mb)} MB`,
    ],
    [
      "cold index",
      (_, f) =>
        `${fmt(f.cold_index_s, 2)} s = ${times(f.cold_index_vs_ctags, 1)} ctags -R (${
          fmt(f.ctags_s, 2)
        } s)`,
    ],
    ["cold index per 100k lines", (_, f) => `${fmt(f.s_per_100k_lines, 3)} s`],
    [
      "target on disk",
      (_, f) =>
        `${fmt((f.target_bytes ?? NaN) / 1e6, 1)} MB = ${
          times(f.target_bytes_per_corpus_byte, 2)
        } the corpus`,
    ],
    ["peak RSS while indexing", (_, f) => `${fmt(f.peak_rss_indexing_mb, 0)} MB`],
    [
      "daemon RSS serving",
      (r, f) =>
        r.daemon
          ? `${fmt(f.daemon_rss_serving_mb, 0)} MB (${r.daemon.clients} clients; idle ${
            fmt(f.daemon_rss_idle_mb, 0)
          }, VmHWM ${fmt(f.daemon_peak_rss_mb, 0)})`
          : "skipped",
    ],
    [
      "search p50/p95/p99 warm, distinct",
      (_, f) =>
        `${ms3(f.search_p50_ms, f.search_p95_ms, f.search_p99_ms)} (rg -c ${
          fmt(f.rg_p50_ms, 1)
        } ms: ${times(f.search_p50_vs_rg, 2)})`,
    ],
    ["symbols p50 / p99", (_, f) => `${fmt(f.symbols_p50_ms)} / ${fmt(f.symbols_p99_ms)} ms`],
    [
      "definition / callers p50",
      (_, f) => `${fmt(f.definition_p50_ms)} / ${fmt(f.callers_p50_ms)} ms`,
    ],
    [
      `impact depth ${IMPACT_DEPTH} p50 / p99`,
      (_, f) => `${fmt(f.impact_p50_ms)} / ${fmt(f.impact_p99_ms)} ms`,
    ],
    [
      "references / callees / neighborhood p50",
      (_, f) =>
        `${fmt(f.references_p50_ms)} / ${fmt(f.callees_p50_ms)} / ${fmt(f.neighborhood_p50_ms)} ms`,
    ],
    ...AGENT_ACTIONS.map((action): [string, (r: TargetResult, f: Figures) => string] => [
      `${action} p50 / p99`,
      (r, f) =>
        r.actions[action]?.status === "measured"
          ? `${fmt(f[`${action}_p50_ms`])} / ${fmt(f[`${action}_p99_ms`])} ms`
          : (r.actions[action]?.status ?? "absent"),
    ]),
    [
      "clients during a refresh: search",
      (r, f) =>
        r.daemon
          ? `p50 ${fmt(f.during_refresh_search_p50_ms, 1)} ms, p99 ${
            fmt(f.during_refresh_search_p99_ms, 1)
          } ms, ${fmt(f.during_refresh_errors, 0)} errors (${r.daemon.clients} clients)`
          : "skipped",
    ],
    [
      "no-op / one-file refresh",
      (_, f) => `${fmt(f.noop_refresh_ms, 1)} / ${fmt(f.one_file_refresh_ms, 1)} ms`,
    ],
    [
      "grep first query (cold files) p50",
      (_, f) =>
        `${fmt(f.grep_first_p50_ms, 1)} ms; ast-grep ${fmt(f.ast_grep_p50_ms, 1)} ms; ${
          times(f.grep_first_vs_ast_grep, 3)
        } (median of patterns)`,
    ],
    [
      "grep patterns ≤ 0.1× ast-grep, first query",
      (_, f) =>
        `${fmt(f.grep_patterns_at_tenth_of_ast_grep, 0)} of ${fmt(f.grep_patterns, 0)}` +
        (f.grep_selective_patterns
          ? `; selective ${fmt(f.grep_selective_at_tenth_of_ast_grep, 0)} of ${
            fmt(f.grep_selective_patterns, 0)
          }`
          : ""),
    ],
    [
      "grep warm p50",
      (_, f) => `${fmt(f.grep_warm_p50_ms, 1)} ms (${times(f.grep_warm_vs_ast_grep, 3)} ast-grep)`,
    ],
    [
      "LSP routed overhead p50 / p95 (--lsp)",
      (r, f) =>
        r.lsp
          ? `definition +${fmt(f.lsp_definition_overhead_p50_ms)} / +${
            fmt(f.lsp_definition_overhead_p95_ms)
          } ms (direct ${fmt(f.lsp_definition_direct_p50_ms)}); references +${
            fmt(f.lsp_references_overhead_p50_ms)
          } / +${fmt(f.lsp_references_overhead_p95_ms)} ms (direct ${
            fmt(f.lsp_references_direct_p50_ms)
          }), ${r.lsp.language}`
          : "not measured",
    ],
    [
      "load average (cold index)",
      (r) =>
        `${fmt(r.cold_index.load_average[0])} → ${
          fmt(r.cold_index.load_average[1])
        } on ${navigator.hardwareConcurrency} CPUs`,
    ],
  ];
  return renderTable(
    ["measure", ...results.map((r) => r.label)],
    rows.map(([name, cell]) => [name, ...results.map((r) => cell(r, r.figures))]),
  );
}

function actionTable(r: TargetResult): string {
  const rows = Object.entries(r.actions).map(([action, t]) =>
    t.status === "measured"
      ? [
        action,
        fmt(t.runs, 0),
        fmt(t.p50_ms),
        fmt(t.p95_ms),
        fmt(t.p99_ms),
        fmt(t.max_ms),
        fmt(t.mean_hits, 1),
        fmt(t.errors, 0),
        t.distinct ? "yes" : "no",
      ]
      : [action, "-", "-", "-", "-", "-", "-", fmt(t.errors ?? 0, 0), t.status]
  );
  return renderTable(
    ["action", "runs", "p50 ms", "p95 ms", "p99 ms", "max ms", "hits", "errors", "distinct"],
    rows,
  );
}

function grepTable(r: TargetResult): string {
  const rows = r.grep.patterns.map((p) => [
    shortPattern(p.pattern),
    p.language,
    p.selective ? "yes" : "",
    p.sextant.error ? "error" : fmt(p.sextant.first_ms, 1),
    fmt(p.sextant.warm_p50_ms, 1),
    fmt(p.ast_grep?.ms, 1),
    times(p.first_vs_ast_grep, 3),
    times(p.warm_vs_ast_grep, 3),
    `${fmt(p.sextant.matches, 0)} / ${p.ast_grep ? fmt(p.ast_grep.matches, 0) : "-"}`,
  ]);
  return renderTable(
    [
      "pattern",
      "language",
      "selective",
      "first ms",
      "warm ms",
      "ast-grep ms",
      "first/ast",
      "warm/ast",
      "matches (sextant / ast-grep)",
    ],
    rows,
  );
}

/** A pattern on one line of at most 40 characters (newlines shown as ⏎). */
function shortPattern(pattern: string): string {
  const line = pattern.replace(/\n\s*/g, "⏎ ");
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}

function daemonSummary(d: DaemonResult): string {
  const refresh = d.during_refresh.refresh;
  return `daemon (${d.query_workers ?? "default"} query Workers): started in ${d.startup_s}s, ` +
    `first refresh ${fmt(d.first_refresh.ms, 1)} ms (parsed ${d.first_refresh.parsed}); RSS idle ${
      fmt(d.rss_idle_mb, 0)
    } MB, ` +
    `serving max ${fmt(d.serving.rss_max_mb, 0)} MB, during refresh max ${
      fmt(d.during_refresh.rss_max_mb, 0)
    } MB, VmHWM ${fmt(d.peak_rss_mb, 0)} MB; refresh of ${d.during_refresh.changed_files} files ` +
    (refresh ? `${fmt(refresh.ms / 1000, 2)}s (parsed ${refresh.parsed})` : "failed") +
    (d.one_file_refresh
      ? `; one-file refresh ${fmt(d.one_file_refresh.after_pause_ms, 0)} ms after a pause (the ` +
        `standby Worker), ${fmt(d.one_file_refresh.pool_alive_ms, 0)} ms with it alive`
      : "") +
    (d.cli
      ? `; a query process (symbols) ${fmt(d.cli.daemon_ms, 0)} ms through the daemon, ` +
        `${fmt(d.cli.embedded_ms, 0)} ms embedded`
      : "") +
    `; answer cache ${d.cache?.hits ?? "?"} hits / ${d.cache?.misses ?? "?"} misses`;
}

function daemonTable(d: DaemonResult): string {
  const rows: string[][] = [];
  for (const [action, s] of Object.entries(d.serial)) {
    rows.push([
      `1 client, serial: ${action}`,
      fmt(s.runs, 0),
      fmt(s.p50_ms),
      fmt(s.p95_ms),
      fmt(s.p99_ms),
      fmt(s.errors, 0),
      "-",
    ]);
  }
  const phase = (name: string, p: LoadPhase) => {
    for (const [action, s] of Object.entries(p.actions)) {
      rows.push([
        `${d.clients} clients, ${name}: ${action}`,
        fmt(s.runs, 0),
        fmt(s.p50_ms),
        fmt(s.p95_ms),
        fmt(s.p99_ms),
        fmt(s.errors, 0),
        fmt(p.throughput_rps, 0),
      ]);
    }
  };
  phase("serving", d.serving);
  phase("during refresh", d.during_refresh);
  for (const [action, s] of Object.entries(d.during_refresh.sent_while_refreshing)) {
    rows.push([
      `  sent while refreshing: ${action}`,
      fmt(s.runs, 0),
      fmt(s.p50_ms),
      fmt(s.p95_ms),
      fmt(s.p99_ms),
      fmt(s.errors, 0),
      "-",
    ]);
  }
  const table = renderTable([
    "through the socket",
    "answers",
    "p50 ms",
    "p95 ms",
    "p99 ms",
    "errors",
    "req/s",
  ], rows);
  const errors = d.error_samples.map((e) => `  error: ${e}`);
  return [table, ...errors].join("\n");
}

/** "12.4×", or "-" when there is no ratio. */
export function times(value: number | null | undefined, digits: number): string {
  const text = fmt(value, digits);
  return text === "-" ? "-" : `${text}×`;
}

function ms3(a: number | null, b: number | null, c: number | null): string {
  return `${fmt(a)} / ${fmt(b)} / ${fmt(c)} ms`;
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
