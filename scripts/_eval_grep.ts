/**
 * The grep-only baseline every figure is shown beside: ripgrep on the query's distinctive
 * words, files ranked by idf-weighted match counts, whole files read in order.
 */
import { join } from "node:path";
import type { RankedItem } from "./_eval_metrics.ts";

const STOP = new Set(
  ("the and for that this with from are was were not but have has had you your can could would " +
    "should will when what which there their them then than into also just only very some any all " +
    "each use used using get like want does did done its it's out about how why who where after " +
    "before because been being here more most other such these those while way one two").split(" "),
);

/** Files a grep-only agent reads for a query, best first, at most `limit`. */
export async function grepBaseline(
  root: string,
  query: string,
  options: { limit: number; maxWords?: number },
): Promise<RankedItem[]> {
  const words = [
    ...new Set((query.match(/[A-Za-z_][A-Za-z0-9_]{2,}/g) ?? []).map((w) => w.toLowerCase())),
  ].filter((word) => !STOP.has(word)).slice(0, options.maxWords ?? 300);
  if (words.length === 0) return [];
  const fileCount = (await rg(root, ["--files"])).split("\n").filter(Boolean).length;
  const output = await rg(root, [
    "-o",
    "-i",
    "-w",
    "-F",
    "--no-heading",
    "--with-filename",
    "--no-line-number",
    ...words.flatMap((word) => ["-e", word]),
  ]);
  const counts = new Map<string, Map<string, number>>();
  for (const line of output.split("\n")) {
    const at = line.lastIndexOf(":");
    if (at <= 0) continue;
    const path = line.slice(0, at);
    const word = line.slice(at + 1).toLowerCase();
    let perFile = counts.get(path);
    if (!perFile) counts.set(path, perFile = new Map());
    perFile.set(word, (perFile.get(word) ?? 0) + 1);
  }
  const documentFrequency = new Map<string, number>();
  for (const perFile of counts.values()) {
    for (const word of perFile.keys()) {
      documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
    }
  }
  const idf = (word: string) => Math.log(1 + fileCount / (documentFrequency.get(word) ?? 1));
  const ranked = [...counts.entries()].map(([path, perFile]) => {
    let score = 0;
    for (const [word, n] of perFile) {
      // Words in more than half the files are not distinctive.
      if ((documentFrequency.get(word) ?? 0) > fileCount / 2) continue;
      score += idf(word) * (1 + Math.log(n));
    }
    return { path, score };
  }).filter((entry) => entry.score > 0).sort((a, b) =>
    b.score - a.score || a.path.localeCompare(b.path)
  );
  return ranked.slice(0, options.limit).map(({ path }) => ({
    path: path.replace(/^\.\//, ""),
    symbol: null,
    tokens: Math.ceil(fileSize(join(root, path)) / 4),
  }));
}

function fileSize(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}

async function rg(cwd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command("rg", {
    args: ["--no-config", ...args],
    cwd,
    stdout: "piped",
    stderr: "null",
  }).output();
  // Exit 1 means "no match", which is an answer here, not an error.
  if (out.code > 1) throw new Error(`rg ${args.slice(0, 3).join(" ")} failed (exit ${out.code})`);
  return new TextDecoder().decode(out.stdout);
}
