/** Retrieval metrics for `deno task eval`: ranked lists in, numbers out (pure). */

/** One ranked item an agent reads: a file (whole) or a snippet, with its token cost. */
export interface RankedItem {
  path: string;
  /** `path:Symbol.path` of the chunk, when known. */
  symbol: string | null;
  /** The chunk's lines (1-based, inclusive), when it is a chunk. */
  lines?: [number, number];
  tokens: number;
}

/** A gold function located in the index: its file and lines. */
export interface GoldFunction {
  name: string;
  path: string;
  lines: [number, number] | null;
}

export interface QueryScore {
  fileRecall: Record<1 | 5 | 10, number>;
  functionRecall: Record<1 | 5 | 10, number> | null;
  reciprocalRank: number;
  ndcg10: number;
  /** Tokens read in rank order up to and including the first gold hit; all of them on a miss. */
  tokensToGold: number;
  found: boolean;
}

export interface Summary {
  queries: number;
  recall_at_1: number;
  recall_at_5: number;
  recall_at_10: number;
  function_queries: number;
  function_recall_at_1: number | null;
  function_recall_at_5: number | null;
  function_recall_at_10: number | null;
  mrr: number;
  ndcg_at_10: number;
  tokens_to_gold_mean: number;
  tokens_to_gold_median: number;
  found_share: number;
}

const CUTOFFS = [1, 5, 10] as const;

/** Distinct values in first-seen order. */
function distinct(values: string[]): string[] {
  return [...new Set(values)];
}

function functionHit(item: RankedItem, fn: GoldFunction): boolean {
  if (item.path !== fn.path) return false;
  if (fn.lines && item.lines) return item.lines[0] <= fn.lines[1] && fn.lines[0] <= item.lines[1];
  return item.symbol !== null && functionMatches(item.symbol, `${fn.path}:${fn.name}`);
}

/** Whether a chunk symbol (`path:A.b`) matches a gold function (`path:A.b` or `path:b`). */
export function functionMatches(symbol: string, gold: string): boolean {
  if (symbol === gold) return true;
  const [symbolPath, symbolName] = splitOnce(symbol);
  const [goldPath, goldName] = splitOnce(gold);
  if (symbolPath !== goldPath || !symbolName || !goldName) return false;
  // A nested chunk (`A.b.inner`) still sits inside the gold function `A.b`.
  return symbolName.startsWith(`${goldName}.`);
}

function splitOnce(value: string): [string, string] {
  const at = value.indexOf(":");
  return at < 0 ? [value, ""] : [value.slice(0, at), value.slice(at + 1)];
}

/** Scores one ranked list against gold files (and gold functions when given). */
export function scoreQuery(
  items: RankedItem[],
  gold: { files: string[]; functions?: GoldFunction[] },
): QueryScore {
  const goldFiles = new Set(gold.files);
  const files = distinct(items.map((item) => item.path));
  const fileRecall = {} as Record<1 | 5 | 10, number>;
  for (const k of CUTOFFS) {
    fileRecall[k] = files.slice(0, k).filter((path) => goldFiles.has(path)).length /
      Math.max(1, goldFiles.size);
  }
  const firstRank = files.findIndex((path) => goldFiles.has(path));
  let dcg = 0;
  files.slice(0, 10).forEach((path, i) => {
    if (goldFiles.has(path)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(10, goldFiles.size); i++) ideal += 1 / Math.log2(i + 2);
  let functionRecall: Record<1 | 5 | 10, number> | null = null;
  if (gold.functions && gold.functions.length > 0) {
    // Chunks in rank order: a gold function is found when a chunk overlaps its lines
    // (or, when its lines are unknown, names it).
    functionRecall = {} as Record<1 | 5 | 10, number>;
    for (const k of CUTOFFS) {
      const top = items.slice(0, k);
      functionRecall[k] = gold.functions.filter((fn) =>
        top.some((item) => functionHit(item, fn))
      ).length / gold.functions.length;
    }
  }
  let tokensToGold = 0;
  let found = false;
  for (const item of items) {
    tokensToGold += item.tokens;
    if (goldFiles.has(item.path)) {
      found = true;
      break;
    }
  }
  return {
    fileRecall,
    functionRecall,
    reciprocalRank: firstRank < 0 ? 0 : 1 / (firstRank + 1),
    ndcg10: ideal === 0 ? 0 : dcg / ideal,
    tokensToGold,
    found,
  };
}

/** Means (and the median of tokens-to-gold) over the scored queries. */
export function summarize(scores: QueryScore[]): Summary {
  const mean = (values: number[]) =>
    values.length === 0 ? 0 : round(values.reduce((a, b) => a + b, 0) / values.length);
  const withFunctions = scores.filter((score) => score.functionRecall !== null);
  const fn = (k: 1 | 5 | 10) =>
    withFunctions.length === 0 ? null : mean(withFunctions.map((s) => s.functionRecall![k]));
  const tokens = scores.map((score) => score.tokensToGold).sort((a, b) => a - b);
  return {
    queries: scores.length,
    recall_at_1: mean(scores.map((s) => s.fileRecall[1])),
    recall_at_5: mean(scores.map((s) => s.fileRecall[5])),
    recall_at_10: mean(scores.map((s) => s.fileRecall[10])),
    function_queries: withFunctions.length,
    function_recall_at_1: fn(1),
    function_recall_at_5: fn(5),
    function_recall_at_10: fn(10),
    mrr: mean(scores.map((s) => s.reciprocalRank)),
    ndcg_at_10: mean(scores.map((s) => s.ndcg10)),
    tokens_to_gold_mean: Math.round(mean(tokens)),
    tokens_to_gold_median: tokens.length === 0 ? 0 : tokens[Math.floor((tokens.length - 1) / 2)],
    found_share: mean(scores.map((s) => (s.found ? 1 : 0))),
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
