/**
 * Ranking (pure): chunk scores from the lexical and vector backends are fused,
 * files are scored from their chunks plus path, mention and definition
 * signals, and the list is grouped so one file does not flood it. Every
 * weight here was kept because `deno task eval` said it helped.
 */
import { codeTerms, compactIdentifier } from "../engine/tokenizer.ts";
import { pathMatchesMention, type QueryAnalysis } from "../engine/query.ts";
import { stableOrder } from "../engine/order.ts";

export type Strategy = "hybrid" | "lexical" | "vector";

/** A chunk as the ranker sees it. */
export interface RankChunk {
  id: number;
  fileId: number;
  path: string;
  startLine: number;
  endLine: number;
  /** Where it starts in its file's committed text (UTF-8 bytes), when read from a target. */
  startByte?: number;
  kind: string;
  symbolPath: string | null;
  /** Weighted bm25 (absent when the lexical backend did not find it). */
  lexical?: number;
  /** The selected terms the chunk holds: bit `i` for the `i`-th term of `RankInput.termIdf`. */
  lexicalTerms?: number;
  /** Cosine to the query vector (absent when not among the nearest). */
  vector?: number;
}

export interface RankFile {
  path: string;
  language: string | null;
}

export interface RankedChunk<R = null> {
  chunk: RankChunk;
  score: number;
  /** Share of the query's term weight the chunk holds (lexical evidence). */
  matchedShare: number;
  /** Which of its file's chunks it is, best first (0 for the best). */
  round: number;
  /** The chunk's file, as `RankInput.files` holds it. */
  file: RankFile;
  /** Where the chunks came from, as the caller named it (each entry is made once). */
  repo: R;
}

export interface RankInput {
  strategy: Strategy;
  analysis: QueryAnalysis;
  /** Query terms with idf, as the lexical backend selected them (in its order, at most 32). */
  termIdf: Map<string, number>;
  chunks: RankChunk[];
  files: Map<number, RankFile>;
  /** Per file, the strength of query identifiers it defines. */
  definitions: Map<number, number>;
  /** Chunks that hold a definition of a query identifier, or a line a traceback names. */
  pinned: Set<number>;
}

/** The knobs of the ranker, in one place so the eval can tell what each is worth. */
export const RANKING = {
  /** Reciprocal-rank-fusion constant for hybrid. */
  rrfK: 60,
  /** Cosine a chunk needs before the vector backend offers it (below it is hashing noise). */
  minCosine: 0.1,
  /** Weight of the vector list in the fusion (the lexical list weighs 1). */
  vectorWeight: 0.15,
  /** How much of a file's second and third chunk adds to its best. */
  secondChunk: 0.2,
  pathTerms: 0.35,
  mention: 1.0,
  definitions: 0.35,
  pinned: 0.3,
  symbolName: 0.5,
  definitionKind: 0.1,
  testPenalty: 0.4,
  docPenalty: 0.5,
  configPenalty: 0.5,
  vendorPenalty: 0.5,
  /**
   * Hits scoring below this share of the top hit are noise and cut from the
   * answer (an order of magnitude below: "retry backoff" on psf/requests padded
   * its list with MANIFEST.in at 0.11 against 1.27).
   */
  tailShare: 0.1,
};

const TEST_PATH =
  /(^|\/)(tests?|testing|__tests__|spec|specs|fixtures?|testdata)\/|(^|\/)(test_[^/]*|[^/]*_test\.[^/]+|[^/]*\.(test|spec)\.[^/]+|conftest\.py)$/;
const DOC_PATH =
  /(^|\/)(docs?|documentation|changelog|changes)\/|\.(md|mdx|rst|txt|adoc)$|(^|\/)(CHANGELOG|CHANGES|HISTORY|NEWS|AUTHORS)[^/]*$/i;
const DOC_LANGUAGES = new Set(["markdown", "restructuredtext", "text"]);
const CONFIG_LANGUAGES = new Set([
  "yaml",
  "json",
  "toml",
  "ini",
  "xml",
  "html",
  "css",
  "makefile",
  "dockerfile",
]);
/** Vendored code: a vendor directory, or a `packages/` folder nested inside a package. */
const VENDOR_PATH =
  /(^|\/)(vendor|_vendor|vendored|third_party|third-party)\/|^[^/]+\/(.*\/)?packages\//;

/** True for configuration: a config language, or a file under a dot-directory. */
export function isConfigPath(path: string, language: string | null): boolean {
  return (language !== null && CONFIG_LANGUAGES.has(language)) || /(^|\/)\.[^/]+\//.test(path);
}

/** True for vendored third-party code kept in the repository. */
export function isVendorPath(path: string): boolean {
  return VENDOR_PATH.test(path);
}

/** True for a test file by its path. */
export function isTestPath(path: string): boolean {
  return TEST_PATH.test(path);
}

/** True for documentation by its path or language. */
export function isDocPath(path: string, language: string | null): boolean {
  return DOC_PATH.test(path) || (language !== null && DOC_LANGUAGES.has(language));
}

/** What ranking reads of a file's path, worked out once per file object. */
interface FileFeatures {
  pathTerms: ReadonlySet<string>;
  test: boolean;
  doc: boolean;
  config: boolean;
  vendor: boolean;
}

/** Per file (a reader's file table keeps its entries for a generation): its path's features. */
const FILE_FEATURES = new WeakMap<RankFile, FileFeatures>();

function featuresOf(file: RankFile): FileFeatures {
  let features = FILE_FEATURES.get(file);
  if (!features) {
    features = {
      pathTerms: new Set(codeTerms(file.path)),
      test: isTestPath(file.path),
      doc: isDocPath(file.path, file.language),
      config: isConfigPath(file.path, file.language),
      vendor: isVendorPath(file.path),
    };
    FILE_FEATURES.set(file, features);
  }
  return features;
}

/** The compact last segment of symbol paths seen recently (chunks repeat across queries). */
const SYMBOL_NAMES = new Map<string, string>();
const SYMBOL_NAMES_MAX = 50_000;

function symbolName(symbolPath: string): string {
  let name = SYMBOL_NAMES.get(symbolPath);
  if (name === undefined) {
    name = compactIdentifier(lastSegment(symbolPath));
    if (SYMBOL_NAMES.size >= SYMBOL_NAMES_MAX) SYMBOL_NAMES.clear();
    SYMBOL_NAMES.set(symbolPath, name);
  }
  return name;
}

/**
 * Ranks chunks: best files first, each file's chunks together in rounds. Every
 * entry carries `repo` (the caller's name for where the chunks came from).
 */
export function rankChunks<R = null>(input: RankInput, repo: R = null as R): RankedChunk<R>[] {
  const { analysis, chunks } = input;
  const base = baseScores(input);
  const totalWeight = analysis.terms.reduce(
    (sum, term) => sum + (input.termIdf.has(term.term) ? term.weight : 0),
    0,
  );
  // Per query term, its bit in a chunk's `lexicalTerms` (-1: not selected).
  const selected = new Map([...input.termIdf.keys()].map((term, bit) => [term, bit]));
  const termBits = analysis.terms.map((term) => selected.get(term.term) ?? -1);
  const identifierNames = new Set(analysis.identifiers.map((word) => compactIdentifier(word)));
  // Chunks are addressed by their position in `input.chunks`, files by their first chunk's turn.
  const chunkScores = new Float64Array(chunks.length);
  const fileOf = new Int32Array(chunks.length);
  const fileIds: number[] = [];
  const ordinals = new Map<number, number>();
  for (let at = 0; at < chunks.length; at++) {
    const chunk = chunks[at];
    let score = base[at];
    if (chunk.symbolPath && identifierNames.size > 0) {
      if (identifierNames.has(symbolName(chunk.symbolPath))) {
        score += RANKING.symbolName * Math.max(score, 0.2);
      }
    }
    if (chunk.kind === "definition") score *= 1 + RANKING.definitionKind;
    if (input.pinned.has(chunk.id)) score += RANKING.pinned;
    chunkScores[at] = score;
    let ordinal = ordinals.get(chunk.fileId);
    if (ordinal === undefined) {
      ordinals.set(chunk.fileId, ordinal = fileIds.length);
      fileIds.push(chunk.fileId);
    }
    fileOf[at] = ordinal;
  }
  // Each file's chunks, best first (then by line), in one array: file `f` holds
  // `byFile[starts[f] .. starts[f + 1])`.
  const starts = new Int32Array(fileIds.length + 1);
  for (let at = 0; at < chunks.length; at++) starts[fileOf[at] + 1]++;
  for (let f = 0; f < fileIds.length; f++) starts[f + 1] += starts[f];
  const byFile = new Int32Array(chunks.length);
  const filled = starts.slice(0, fileIds.length);
  for (let at = 0; at < chunks.length; at++) byFile[filled[fileOf[at]]++] = at;
  const bestFirst = (a: number, b: number) =>
    chunkScores[b] - chunkScores[a] || chunks[a].startLine - chunks[b].startLine || a - b;
  const selectedTerms = [...input.termIdf.keys()];
  const idfs = [...input.termIdf.values()];
  const pathTermTotal = idfs.reduce((sum, idf) => sum + idf, 0) || 1;
  const fileScores = new Float64Array(fileIds.length);
  const fileEntries: RankFile[] = new Array(fileIds.length);
  for (let f = 0; f < fileIds.length; f++) {
    const from = starts[f];
    const count = starts[f + 1] - from;
    if (count > 1) byFile.subarray(from, from + count).sort(bestFirst);
    const second = count > 1 ? chunkScores[byFile[from + 1]] : 0;
    const third = count > 2 ? chunkScores[byFile[from + 2]] : 0;
    let score = chunkScores[byFile[from]] + RANKING.secondChunk * (second + 0.5 * third);
    const fileId = fileIds[f];
    const file = input.files.get(fileId)!;
    fileEntries[f] = file;
    const features = featuresOf(file);
    let pathWeight = 0;
    for (let t = 0; t < selectedTerms.length; t++) {
      if (features.pathTerms.has(selectedTerms[t])) pathWeight += idfs[t];
    }
    score += RANKING.pathTerms * Math.min(1, (pathWeight / pathTermTotal) * 4);
    let mention = 0;
    for (const mentioned of analysis.paths) {
      mention = Math.max(mention, pathMatchesMention(file.path, mentioned.path));
    }
    for (const scope of analysis.scopes) mention = Math.max(mention, scopeMatch(file.path, scope));
    score += RANKING.mention * mention;
    score += RANKING.definitions * Math.min(1.5, input.definitions.get(fileId) ?? 0);
    if (features.test) score *= RANKING.testPenalty;
    if (features.doc) score *= RANKING.docPenalty;
    if (features.config) score *= RANKING.configPenalty;
    if (features.vendor) score *= RANKING.vendorPenalty;
    fileScores[f] = score;
  }
  const order = Int32Array.from(fileIds.keys()).sort((a, b) =>
    fileScores[b] - fileScores[a] || (fileEntries[a].path < fileEntries[b].path ? -1 : 1)
  );
  // The share of the query's weight each distinct set of term bits holds.
  const shares = new Map<number, number>();
  const shareOf = (bits: number): number => {
    let share = shares.get(bits);
    if (share === undefined) {
      let matched = 0;
      if (bits !== 0) {
        for (let i = 0; i < termBits.length; i++) {
          if (termBits[i] >= 0 && (bits >>> termBits[i]) & 1) matched += analysis.terms[i].weight;
        }
      }
      shares.set(bits, share = totalWeight > 0 ? matched / totalWeight : 0);
    }
    return share;
  };
  // Rounds: every file's best chunk in file order, then every file's second, … (a round visits
  // only the files with a chunk left).
  const ranked: RankedChunk<R>[] = [];
  const open = Array.from(order);
  for (let round = 0; open.length > 0; round++) {
    let left = 0;
    for (const f of open) {
      const from = starts[f];
      const at = byFile[from + round];
      const chunk = chunks[at];
      const best = chunkScores[byFile[from]] || 1;
      ranked.push({
        chunk,
        score: fileScores[f] * (chunkScores[at] / best),
        matchedShare: shareOf(chunk.lexicalTerms ?? 0),
        round,
        file: fileEntries[f],
        repo,
      });
      if (starts[f + 1] - from > round + 1) open[left++] = f;
    }
    open.length = left;
  }
  return ranked;
}

/** Chunk scores in [0, 1] from the strategy's backends, by position in `input.chunks`. */
function baseScores(input: RankInput): Float64Array {
  const { chunks } = input;
  const scores = new Float64Array(chunks.length);
  const lexical: number[] = [];
  const vector: number[] = [];
  let maxLexical = 0;
  let maxVector = 0;
  for (let at = 0; at < chunks.length; at++) {
    const { lexical: l, vector: v } = chunks[at];
    if (l !== undefined) {
      lexical.push(at);
      if (l > maxLexical) maxLexical = l;
    }
    if (v !== undefined) {
      vector.push(at);
      if (v > maxVector) maxVector = v;
    }
  }
  maxLexical ||= 1;
  maxVector ||= 1;
  if (input.strategy === "lexical") {
    for (const at of lexical) scores[at] = chunks[at].lexical! / maxLexical;
    return scores;
  }
  if (input.strategy === "vector") {
    for (const at of vector) scores[at] = Math.max(0, chunks[at].vector!) / maxVector;
    return scores;
  }
  // Hybrid: reciprocal rank fusion of the two lists, scaled so the best possible is 1.
  const k = RANKING.rrfK;
  const lexicalRank = rankOf(lexical, (at) => chunks[at].lexical!, chunks.length);
  const vectorRank = rankOf(vector, (at) => chunks[at].vector!, chunks.length);
  for (let at = 0; at < chunks.length; at++) {
    const l = lexicalRank[at];
    const v = vectorRank[at];
    const fused = (l === 0 ? 0 : 1 / (k + l)) + (v === 0 ? 0 : RANKING.vectorWeight / (k + v));
    scores[at] = (fused * (k + 1)) / (1 + RANKING.vectorWeight);
  }
  return scores;
}

/** 1-based ranks by descending score (equal scores in list order), by position; 0 when absent. */
function rankOf(list: number[], score: (at: number) => number, size: number): Int32Array {
  // Negated, ascending: descending scores, equal ones in list order.
  const negated = new Float64Array(list.length);
  for (let i = 0; i < list.length; i++) negated[i] = -score(list[i]);
  const order = stableOrder(negated);
  const ranks = new Int32Array(size);
  for (let rank = 0; rank < order.length; rank++) ranks[list[order[rank]]] = rank + 1;
  return ranks;
}

/** How well a path matches a commit scope such as `async/unstable` or `http`. */
function scopeMatch(path: string, scope: string): number {
  const segments = path.split("/");
  const parts = scope.split("/").filter(Boolean);
  if (parts.length === 0) return 0;
  if (segments[0] !== parts[0]) return 0;
  // Only the leading directory: scopes name a package, not a file.
  return 0.5;
}

function lastSegment(symbolPath: string): string {
  // Without a colon only `.` and `/` separate: the text after the last of them.
  if (!symbolPath.includes(":")) {
    return symbolPath.slice(Math.max(symbolPath.lastIndexOf("."), symbolPath.lastIndexOf("/")) + 1);
  }
  const parts = symbolPath.split(/\.|::|\//);
  return parts[parts.length - 1];
}
