/**
 * `deno task bench --scale`: the same figures at several sizes, and how each
 * cost grows with the number of lines. The fit is over the synthetic points
 * (one generator, so only the size changes); a workspace of real repositories
 * given with `--path` is shown beside them, outside the fit.
 */
import type { Figures } from "./_bench_figures.ts";
import { fmt, renderTable, times } from "./_bench_report.ts";
import type { TargetResult } from "./_bench_sextant.ts";
import { growth, marginalGrowth, round } from "./_bench_stats.ts";

export const DEFAULT_SCALE = [50_000, 500_000, 5_000_000];

/** The columns of the growth table: a figure and how to show it. */
const COLUMNS: { key: string; header: string; digits: number; suffix?: string }[] = [
  { key: "cold_index_s", header: "cold s", digits: 2 },
  { key: "s_per_100k_lines", header: "s/100k lines", digits: 3 },
  { key: "cold_index_vs_ctags", header: "× ctags", digits: 1, suffix: "×" },
  { key: "target_bytes_per_corpus_byte", header: "target B/corpus B", digits: 2 },
  { key: "peak_rss_indexing_mb", header: "index RSS MB", digits: 0 },
  { key: "daemon_rss_serving_mb", header: "daemon RSS MB", digits: 0 },
  { key: "noop_refresh_ms", header: "no-op ms", digits: 1 },
  { key: "one_file_refresh_ms", header: "1-file ms", digits: 1 },
  { key: "search_p50_ms", header: "search p50", digits: 2 },
  { key: "symbols_p50_ms", header: "symbols p50", digits: 2 },
  { key: "definition_p50_ms", header: "definition p50", digits: 2 },
  { key: "callers_p50_ms", header: "callers p50", digits: 2 },
  { key: "impact_p50_ms", header: "impact p50", digits: 2 },
  { key: "grep_first_p50_ms", header: "grep first p50", digits: 1 },
  { key: "during_refresh_search_p99_ms", header: "load search p99", digits: 1 },
];

/** Costs whose growth with the line count is fitted, and whether linear is the expectation. */
const TRENDS: { key: string; name: string; expect: "linear" | "flat" }[] = [
  { key: "cold_index_s", name: "cold index time", expect: "linear" },
  { key: "target_bytes", name: "target bytes", expect: "linear" },
  { key: "peak_rss_indexing_mb", name: "peak RSS while indexing", expect: "flat" },
  { key: "daemon_rss_serving_mb", name: "daemon RSS serving", expect: "flat" },
  { key: "search_p50_ms", name: "search p50", expect: "flat" },
  { key: "symbols_p50_ms", name: "symbols p50", expect: "flat" },
  { key: "definition_p50_ms", name: "definition p50", expect: "flat" },
  { key: "callers_p50_ms", name: "callers p50", expect: "flat" },
];

export interface Trend {
  name: string;
  /** What the goal is: linear growth (indexing) or none at all (memory, latency). */
  expect: "linear" | "flat";
  /** k in cost ∝ lines^k: 1 is linear, 0 does not grow. */
  exponent: number;
  /** Cost per line at the largest size ÷ cost per line at the smallest. */
  per_line_ratio: number;
  /**
   * Cost of each added line in the last interval between sizes ÷ in the first
   * (fixed costs cancel out); null with fewer than three sizes.
   */
  marginal_ratio: number | null;
  /** Cost of 100k added lines in the first and last interval, when there are three sizes. */
  marginal_per_100k: [number, number] | null;
  verdict: "sublinear" | "linear" | "superlinear";
}

export interface Growth {
  /** The label, kind and figures of each point, smallest first. */
  points: { label: string; kind: string; figures: Figures }[];
  /** The synthetic points the trends are fitted over. */
  fitted: string[];
  trends: Record<string, Trend>;
  /** One sentence: does indexing cost grow linearly from the smallest to the largest size. */
  summary: string;
}

/**
 * Linear within these bounds: on the marginal ratio when there are three
 * sizes (fixed costs cancel), else on the exponent (fixed costs make a small
 * size look expensive per line, so short fits read as sublinear).
 */
const LINEAR = { marginal: [0.8, 1.25], exponent: [0.9, 1.1] };

function verdict(marginalRatio: number | null, exponent: number): Trend["verdict"] {
  const [low, high] = marginalRatio === null ? LINEAR.exponent : LINEAR.marginal;
  const value = marginalRatio ?? exponent;
  return value > high ? "superlinear" : value < low ? "sublinear" : "linear";
}

export function growthOf(results: TargetResult[]): Growth {
  const points = [...results]
    .sort((a, b) => a.corpus.lines - b.corpus.lines)
    .map((r) => ({ label: r.label, kind: r.kind, figures: r.figures }));
  const fitted = points.filter((p) => p.kind === "synthetic");
  const trends: Record<string, Trend> = {};
  for (const trend of TRENDS) {
    const points = fitted.map((p) => ({
      size: p.figures.corpus_lines ?? 0,
      cost: p.figures[trend.key],
    }));
    const fit = growth(points);
    if (!fit) continue;
    const marginal = marginalGrowth(points);
    trends[trend.key] = {
      name: trend.name,
      expect: trend.expect,
      exponent: fit.exponent,
      per_line_ratio: fit.per_unit_ratio,
      marginal_ratio: marginal?.ratio ?? null,
      marginal_per_100k: marginal
        ? [round(marginal.first_per_unit * 100_000, 3), round(marginal.last_per_unit * 100_000, 3)]
        : null,
      // Memory and latency are judged on the exponent: their marginal cost can be ~0 at first.
      verdict: verdict(trend.expect === "linear" ? marginal?.ratio ?? null : null, fit.exponent),
    };
  }
  return { points, fitted: fitted.map((p) => p.label), trends, summary: summary(fitted, trends) };
}

function summary(fitted: Growth["points"], trends: Record<string, Trend>): string {
  const cold = trends.cold_index_s;
  if (!cold || fitted.length < 2) {
    return "growth not judged: fewer than two synthetic sizes were measured";
  }
  const first = fitted[0].figures.corpus_lines;
  const last = fitted[fitted.length - 1].figures.corpus_lines;
  const grows = cold.verdict === "superlinear"
    ? "grows faster than linearly"
    : cold.verdict === "linear"
    ? "grows linearly"
    : "grows less than linearly";
  return `cold index ${grows} from ${fmt(first, 0)} to ${
    fmt(last, 0)
  } lines: the cost per line at ` +
    `the largest size is ${
      times(cold.per_line_ratio, 2)
    } that at the smallest (exponent ${cold.exponent})`;
}

export function printGrowth(g: Growth): void {
  console.log("");
  console.log("growth with size (every figure per point is in the tables above and in the JSON)");
  const rows = g.points.map((p) => [
    `${p.label}${p.kind === "synthetic" ? "" : " (not fitted)"}`,
    fmt(p.figures.corpus_lines, 0),
    ...COLUMNS.map((c) => {
      const text = fmt(p.figures[c.key], c.digits);
      return c.suffix && text !== "-" ? text + c.suffix : text;
    }),
  ]);
  console.log(renderTable(["point", "lines", ...COLUMNS.map((c) => c.header)], rows));
  console.log("");
  for (const t of Object.values(g.trends)) {
    const marginal = t.marginal_ratio === null
      ? ""
      : `; an added line ${times(t.marginal_ratio, 2)}, last interval vs first`;
    const goal = t.expect === "flat" ? "; the goal is flat, exponent near 0" : "";
    console.log(
      `  ${t.name}: ${t.verdict} (cost ∝ lines^${t.exponent}; per line ` +
        `${times(t.per_line_ratio, 2)} from smallest to largest${marginal}${goal})`,
    );
  }
  console.log(`  ${g.summary}`);
}
