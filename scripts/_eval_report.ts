/** Tables for `deno task eval`: one run, or the difference between two. */
import type { Summary } from "./_eval_metrics.ts";
import type { EvalReport } from "./_eval_run.ts";

const COLUMNS: [keyof Summary, string][] = [
  ["recall_at_1", "R@1"],
  ["recall_at_5", "R@5"],
  ["recall_at_10", "R@10"],
  ["mrr", "MRR"],
  ["ndcg_at_10", "nDCG@10"],
  ["function_recall_at_1", "fR@1"],
  ["function_recall_at_5", "fR@5"],
  ["function_recall_at_10", "fR@10"],
  ["tokens_to_gold_mean", "tok→gold mean"],
  ["tokens_to_gold_median", "tok→gold median"],
];

/** A Markdown table of every strategy's summary. */
export function formatReport(report: EvalReport, dataset: string): string {
  const lines = [
    `${dataset}: ${report.rows} queries`,
    "",
    `| strategy | ${COLUMNS.map(([, label]) => label).join(" | ")} |`,
    `| --- | ${COLUMNS.map(() => "---").join(" | ")} |`,
  ];
  for (const [name, summary] of Object.entries(report.summaries)) {
    lines.push(`| ${name} | ${COLUMNS.map(([key]) => show(summary[key])).join(" | ")} |`);
  }
  lines.push("", "confidence: answers with the gold file first / answers, per label");
  for (const [name, byLabel] of Object.entries(report.calibration ?? {})) {
    const cells = ["reliable", "candidate", "weak"].map((label) => {
      const entry = byLabel[label];
      return `${label} ${entry ? `${entry.goldFirst}/${entry.answers}` : "0/0"}`;
    });
    lines.push(`- ${name}: ${cells.join(", ")}`);
  }
  const search = Object.entries(report.timings_ms.search).map(([name, ms]) =>
    `${name} ${Math.round(ms / Math.max(1, report.rows))} ms/query`
  ).join(", ");
  lines.push(
    "",
    `refresh ${report.timings_ms.refresh} ms total; ${search}; grep ${
      Math.round(report.timings_ms.baseline / Math.max(1, report.rows))
    } ms/query`,
  );
  if (report.skipped && report.skipped.length > 0) {
    lines.push("", `skipped ${report.skipped.length} row(s), not scored:`);
    for (const row of report.skipped) lines.push(`- ${row.id}: ${row.reason}`);
  }
  if (report.notes && report.notes.length > 0) {
    lines.push("", "notes:", ...report.notes.map((note) => `- ${note}`));
  }
  return lines.join("\n");
}

/** A table of B − A per strategy and metric. */
export function compareReports(a: EvalReport, b: EvalReport, nameA: string, nameB: string): string {
  const lines = [
    `${nameB} − ${nameA}`,
    "",
    `| strategy | ${COLUMNS.map(([, label]) => label).join(" | ")} |`,
    `| --- | ${COLUMNS.map(() => "---").join(" | ")} |`,
  ];
  for (const name of Object.keys(b.summaries)) {
    const before = a.summaries[name];
    const after = b.summaries[name];
    if (!before) continue;
    lines.push(`| ${name} | ${
      COLUMNS.map(([key]) => {
        const x = before[key];
        const y = after[key];
        if (typeof x !== "number" || typeof y !== "number") return "–";
        const delta = Math.round((y - x) * 1000) / 1000;
        return `${show(y)} (${delta >= 0 ? "+" : ""}${delta})`;
      }).join(" | ")
    } |`);
  }
  return lines.join("\n");
}

function show(value: unknown): string {
  if (value === null || value === undefined) return "–";
  return typeof value === "number" ? String(value) : String(value);
}
