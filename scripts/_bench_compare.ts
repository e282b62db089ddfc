/**
 * `deno task bench --compare A.json B.json`: what moved between two runs.
 * Targets are matched by label; every figure of both is compared, and the
 * ones that changed by at least the threshold are listed, Sextant's first,
 * peers' own figures after (those move with the machine, not the code).
 */
import { FIGURES } from "./_bench_figures.ts";
import { fmt, renderTable } from "./_bench_report.ts";

interface ComparedDocument {
  started_at?: string;
  targets: { label: string; figures: Record<string, number | null> }[];
}

export interface Moved {
  target: string;
  key: string;
  before: number | null;
  after: number | null;
  /** (after - before) / before; null when either side is missing or before is 0. */
  change: number | null;
  verdict: "better" | "worse" | "changed" | "appeared" | "gone";
  peer: boolean;
}

/** Figures that moved by at least `threshold` (a fraction), or appeared or went away. */
export function compareDocuments(
  before: ComparedDocument,
  after: ComparedDocument,
  threshold: number,
): { moved: Moved[]; unmatched: string[]; compared: number } {
  const moved: Moved[] = [];
  const afterByLabel = new Map(after.targets.map((t) => [t.label, t]));
  const unmatched: string[] = [];
  let compared = 0;
  for (const old of before.targets) {
    const now = afterByLabel.get(old.label);
    if (!now) {
      unmatched.push(old.label);
      continue;
    }
    afterByLabel.delete(old.label);
    const keys = new Set([...Object.keys(old.figures), ...Object.keys(now.figures)]);
    for (const key of keys) {
      compared++;
      const spec = FIGURES.find((f) => f.key === key);
      const a = old.figures[key] ?? null;
      const b = now.figures[key] ?? null;
      const entry = { target: old.label, key, before: a, after: b, peer: spec?.peer ?? false };
      if (a === null && b === null) continue;
      if (a === null) moved.push({ ...entry, change: null, verdict: "appeared" });
      else if (b === null) moved.push({ ...entry, change: null, verdict: "gone" });
      else if (a === b) continue;
      else {
        const change = a === 0 ? null : (b - a) / Math.abs(a);
        if (change !== null && Math.abs(change) < threshold) continue;
        const verdict = spec?.better === "lower" ? (b < a ? "better" : "worse") : "changed";
        moved.push({ ...entry, change, verdict });
      }
    }
  }
  unmatched.push(...afterByLabel.keys());
  moved.sort((x, y) => Number(x.peer) - Number(y.peer));
  return { moved, unmatched, compared };
}

export function printComparison(
  paths: [string, string],
  threshold: number,
): void {
  const read = (path: string) => {
    const document = JSON.parse(Deno.readTextFileSync(path)) as ComparedDocument;
    if (!Array.isArray(document.targets) || document.targets.some((t) => !t.figures)) {
      throw new SyntaxError(
        `Cannot compare ${path}: it holds no figures (a bench JSON of format 2)`,
      );
    }
    return document;
  };
  const [before, after] = paths.map(read);
  const { moved, unmatched, compared } = compareDocuments(before, after, threshold);
  console.log(
    `${paths[0]} (${before.started_at ?? "?"}) → ${paths[1]} (${after.started_at ?? "?"}): ` +
      `${moved.length} of ${compared} figures moved by ≥ ${fmt(threshold * 100, 0)}%`,
  );
  if (moved.length > 0) {
    console.log(renderTable(
      ["target", "figure", "before", "after", "change", ""],
      moved.map((m) => [
        m.target,
        m.peer ? `${m.key} (peer)` : m.key,
        fmt(m.before, 3),
        fmt(m.after, 3),
        m.change === null ? "-" : `${m.change > 0 ? "+" : ""}${fmt(m.change * 100, 1)}%`,
        m.verdict,
      ]),
    ));
  }
  for (const label of unmatched) console.log(`  only in one run: ${label}`);
}
