/**
 * The figures of issue 12's table, flat: one number (or null, when a peer is
 * absent or an action does not exist) per key, computed from one measured
 * target. The person's table, the growth table, `--compare` and the smoke
 * test all read this list, so a figure added here shows up everywhere.
 */
import { AGENT_ACTIONS, NAVIGATION_ACTIONS, NEXT_PAGE } from "./_bench_actions.ts";
import type { TargetResult } from "./_bench_sextant.ts";
import { median, ratio, round } from "./_bench_stats.ts";

export interface FigureSpec {
  key: string;
  /** What moving down means for `--compare`: "lower" is better, "none" is context. */
  better: "lower" | "none";
  /** A peer's own figure: context for the ratios beside it, not Sextant's. */
  peer?: boolean;
}

export type Figures = Record<string, number | null>;

const latencyKeys = (action: string): FigureSpec[] => [
  { key: `${action}_p50_ms`, better: "lower" },
  { key: `${action}_p95_ms`, better: "lower" },
  { key: `${action}_p99_ms`, better: "lower" },
];

export const FIGURES: FigureSpec[] = [
  { key: "corpus_files", better: "none" },
  { key: "corpus_lines", better: "none" },
  { key: "corpus_bytes", better: "none" },
  { key: "cold_index_s", better: "lower" },
  { key: "cold_index_process_s", better: "lower" },
  { key: "s_per_100k_lines", better: "lower" },
  { key: "ctags_s", better: "none", peer: true },
  { key: "cold_index_vs_ctags", better: "lower" },
  { key: "target_bytes", better: "lower" },
  { key: "target_bytes_per_corpus_byte", better: "lower" },
  { key: "peak_rss_indexing_mb", better: "lower" },
  { key: "noop_refresh_ms", better: "lower" },
  { key: "one_file_refresh_ms", better: "lower" },
  ...latencyKeys("search"),
  { key: "rg_p50_ms", better: "none", peer: true },
  { key: "search_p50_vs_rg", better: "lower" },
  ...latencyKeys("symbols"),
  ...NAVIGATION_ACTIONS.flatMap(latencyKeys),
  ...latencyKeys(NEXT_PAGE),
  ...AGENT_ACTIONS.flatMap(latencyKeys),
  { key: "grep_first_p50_ms", better: "lower" },
  { key: "grep_first_max_ms", better: "lower" },
  { key: "grep_warm_p50_ms", better: "lower" },
  { key: "ast_grep_p50_ms", better: "none", peer: true },
  { key: "grep_first_vs_ast_grep", better: "lower" },
  { key: "grep_warm_vs_ast_grep", better: "lower" },
  { key: "grep_patterns", better: "none" },
  { key: "grep_patterns_at_tenth_of_ast_grep", better: "none" },
  { key: "grep_selective_patterns", better: "none" },
  { key: "grep_selective_at_tenth_of_ast_grep", better: "none" },
  { key: "daemon_first_refresh_ms", better: "lower" },
  { key: "daemon_search_p50_ms", better: "lower" },
  { key: "daemon_rss_idle_mb", better: "lower" },
  { key: "daemon_rss_serving_mb", better: "lower" },
  { key: "daemon_peak_rss_mb", better: "lower" },
  { key: "serving_search_p50_ms", better: "lower" },
  { key: "serving_search_p99_ms", better: "lower" },
  { key: "serving_errors", better: "lower" },
  { key: "refresh_under_load_ms", better: "lower" },
  { key: "daemon_one_file_refresh_after_pause_ms", better: "lower" },
  { key: "daemon_one_file_refresh_pool_alive_ms", better: "lower" },
  { key: "cli_query_daemon_ms", better: "lower" },
  { key: "cli_query_embedded_ms", better: "lower" },
  { key: "during_refresh_search_p50_ms", better: "lower" },
  { key: "during_refresh_search_p99_ms", better: "lower" },
  { key: "during_refresh_errors", better: "lower" },
  { key: "lsp_definition_direct_p50_ms", better: "none", peer: true },
  { key: "lsp_definition_overhead_p50_ms", better: "lower" },
  { key: "lsp_definition_overhead_p95_ms", better: "lower" },
  { key: "lsp_references_direct_p50_ms", better: "none", peer: true },
  { key: "lsp_references_overhead_p50_ms", better: "lower" },
  { key: "lsp_references_overhead_p95_ms", better: "lower" },
];

/** Every figure of one target; a figure that could not be measured is null. */
export function figuresOf(result: TargetResult): Figures {
  const { cold_index: cold, actions, grep, peers, daemon } = result;
  const figures: Figures = {
    corpus_files: result.corpus.files,
    corpus_lines: result.corpus.lines,
    corpus_bytes: result.corpus.bytes,
    cold_index_s: cold.s,
    cold_index_process_s: cold.process_s,
    s_per_100k_lines: cold.s_per_100k_lines,
    ctags_s: peers.ctags?.s ?? null,
    cold_index_vs_ctags: ratio(cold.s, peers.ctags?.s),
    target_bytes: result.target.bytes,
    target_bytes_per_corpus_byte: result.target.bytes_per_corpus_byte,
    peak_rss_indexing_mb: cold.peak_rss_mb,
    noop_refresh_ms: result.refresh.noop_ms,
    one_file_refresh_ms: result.refresh.one_file_ms,
    rg_p50_ms: peers.rg?.p50_ms ?? null,
    search_p50_vs_rg: ratio(actions.search?.p50_ms, peers.rg?.p50_ms),
  };
  for (
    const action of ["search", "symbols", ...NAVIGATION_ACTIONS, NEXT_PAGE, ...AGENT_ACTIONS]
  ) {
    const timing = actions[action];
    const measured = timing?.status === "measured";
    figures[`${action}_p50_ms`] = measured ? timing.p50_ms ?? null : null;
    figures[`${action}_p95_ms`] = measured ? timing.p95_ms ?? null : null;
    figures[`${action}_p99_ms`] = measured ? timing.p99_ms ?? null : null;
  }
  const firstRatios = grep.patterns.map((p) => p.first_vs_ast_grep).filter(isNumber);
  const warmRatios = grep.patterns.map((p) => p.warm_vs_ast_grep).filter(isNumber);
  const astGrep = grep.patterns.map((p) => p.ast_grep?.ms).filter(isNumber);
  const selective = grep.patterns.filter((p) => p.selective);
  const atTenth = (patterns: typeof grep.patterns) =>
    patterns.filter((p) => isNumber(p.first_vs_ast_grep) && p.first_vs_ast_grep <= 0.1).length;
  Object.assign(figures, {
    grep_first_p50_ms: finite(grep.first.p50_ms),
    grep_first_max_ms: finite(grep.first.max_ms),
    grep_warm_p50_ms: finite(grep.warm.p50_ms),
    ast_grep_p50_ms: astGrep.length ? round(median(astGrep), 3) : null,
    grep_first_vs_ast_grep: firstRatios.length ? round(median(firstRatios), 3) : null,
    grep_warm_vs_ast_grep: warmRatios.length ? round(median(warmRatios), 3) : null,
    grep_patterns: grep.patterns.length,
    grep_patterns_at_tenth_of_ast_grep: firstRatios.length ? atTenth(grep.patterns) : null,
    grep_selective_patterns: selective.length,
    grep_selective_at_tenth_of_ast_grep: firstRatios.length ? atTenth(selective) : null,
  });
  const load = daemon;
  const search = (actions: Record<string, { p50_ms: number; p99_ms: number }> | undefined) =>
    actions?.search;
  Object.assign(figures, {
    daemon_first_refresh_ms: load?.first_refresh.ms ?? null,
    daemon_search_p50_ms: finite(load?.serial.search?.p50_ms),
    daemon_rss_idle_mb: load?.rss_idle_mb ?? null,
    daemon_rss_serving_mb: load?.serving.rss_max_mb ?? null,
    daemon_peak_rss_mb: load?.peak_rss_mb ?? null,
    serving_search_p50_ms: finite(search(load?.serving.actions)?.p50_ms),
    serving_search_p99_ms: finite(search(load?.serving.actions)?.p99_ms),
    serving_errors: load?.serving.errors ?? null,
    refresh_under_load_ms: load?.during_refresh.refresh?.ms ?? null,
    daemon_one_file_refresh_after_pause_ms: load?.one_file_refresh?.after_pause_ms ?? null,
    daemon_one_file_refresh_pool_alive_ms: load?.one_file_refresh?.pool_alive_ms ?? null,
    cli_query_daemon_ms: load?.cli?.daemon_ms ?? null,
    cli_query_embedded_ms: load?.cli?.embedded_ms ?? null,
    during_refresh_search_p50_ms: finite(
      search(load?.during_refresh.sent_while_refreshing)?.p50_ms,
    ),
    during_refresh_search_p99_ms: finite(
      search(load?.during_refresh.sent_while_refreshing)?.p99_ms,
    ),
    during_refresh_errors: load?.during_refresh.errors ?? null,
  });
  const lsp = result.lsp ?? null;
  Object.assign(figures, {
    lsp_definition_direct_p50_ms: lsp?.definition.direct_p50_ms ?? null,
    lsp_definition_overhead_p50_ms: lsp?.definition.overhead_p50_ms ?? null,
    lsp_definition_overhead_p95_ms: lsp?.definition.overhead_p95_ms ?? null,
    lsp_references_direct_p50_ms: lsp?.references.direct_p50_ms ?? null,
    lsp_references_overhead_p50_ms: lsp?.references.overhead_p50_ms ?? null,
    lsp_references_overhead_p95_ms: lsp?.references.overhead_p95_ms ?? null,
  });
  return figures;
}

function isNumber(value: number | null | undefined): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function finite(value: number | null | undefined): number | null {
  return isNumber(value) ? value : null;
}
