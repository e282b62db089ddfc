/**
 * Ranking (pure): chunk scores from the lexical and vector backends are fused,
 * files are scored from their chunks plus path, mention and definition
 * signals, and the list is grouped so one file does not flood it. Every
 * weight here was kept because `deno task eval` said it helped.
 */
import { codeTerms, compactIdentifier } from "../engine/tokenizer.ts";
import { pathMatchesMention, type QueryAnalysis } from "../engine/query.ts";

export type Strategy = "hybrid" | "lexical" | "vector";

/** A chunk as the ranker sees it. */
export interface RankChunk {
  id: number;
  fileId: number;
  path: string;
  startLine: number;
  endLine: number;
  kind: string;
  symbolPath: string | null;
  /** Weighted bm25 (absent when the lexical backend did not find it). */
  lexical?: number;
  lexicalTerms?: Set<string>;
  /** Cosine to the query vector (absent when not among the nearest). */
  vector?: number;
}

export interface RankFile {
  path: string;
  language: string | null;
}

export interface RankedChunk {
  chunk: RankChunk;
  score: number;
  /** Share of the query's term weight the chunk holds (lexical evidence). */
  matchedShare: number;
}

export interface RankInput {
  strategy: Strategy;
  analysis: QueryAnalysis;
  /** Query terms with idf, as the lexical backend selected them. */
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

/** Ranks chunks: best files first, each file's chunks together in rounds. */
export function rankChunks(input: RankInput): RankedChunk[] {
  const { analysis } = input;
  const base = baseScores(input);
  const totalWeight = analysis.terms.reduce(
    (sum, term) => sum + (input.termIdf.has(term.term) ? term.weight : 0),
    0,
  );
  const identifierNames = new Set(analysis.identifiers.map((word) => compactIdentifier(word)));
  const chunkScores = new Map<number, number>();
  for (const chunk of input.chunks) {
    let score = base.get(chunk.id) ?? 0;
    if (chunk.symbolPath) {
      const name = compactIdentifier(lastSegment(chunk.symbolPath));
      if (identifierNames.has(name)) score += RANKING.symbolName * Math.max(score, 0.2);
    }
    if (chunk.kind === "definition") score *= 1 + RANKING.definitionKind;
    if (input.pinned.has(chunk.id)) score += RANKING.pinned;
    chunkScores.set(chunk.id, score);
  }
  const byFile = new Map<number, RankChunk[]>();
  for (const chunk of input.chunks) {
    if (!byFile.has(chunk.fileId)) byFile.set(chunk.fileId, []);
    byFile.get(chunk.fileId)!.push(chunk);
  }
  const fileScores = new Map<number, number>();
  const pathTermTotal = [...input.termIdf.values()].reduce((a, b) => a + b, 0) || 1;
  for (const [fileId, chunks] of byFile) {
    chunks.sort((a, b) =>
      chunkScores.get(b.id)! - chunkScores.get(a.id)! || a.startLine - b.startLine
    );
    const scores = chunks.map((chunk) => chunkScores.get(chunk.id)!);
    let score = scores[0] + RANKING.secondChunk * ((scores[1] ?? 0) + 0.5 * (scores[2] ?? 0));
    const file = input.files.get(fileId)!;
    const pathTerms = new Set(codeTerms(file.path));
    let pathWeight = 0;
    for (const [term, idf] of input.termIdf) if (pathTerms.has(term)) pathWeight += idf;
    score += RANKING.pathTerms * Math.min(1, (pathWeight / pathTermTotal) * 4);
    let mention = 0;
    for (const mentioned of analysis.paths) {
      mention = Math.max(mention, pathMatchesMention(file.path, mentioned.path));
    }
    for (const scope of analysis.scopes) mention = Math.max(mention, scopeMatch(file.path, scope));
    score += RANKING.mention * mention;
    score += RANKING.definitions * Math.min(1.5, input.definitions.get(fileId) ?? 0);
    if (isTestPath(file.path)) score *= RANKING.testPenalty;
    if (isDocPath(file.path, file.language)) score *= RANKING.docPenalty;
    if (isConfigPath(file.path, file.language)) score *= RANKING.configPenalty;
    if (isVendorPath(file.path)) score *= RANKING.vendorPenalty;
    fileScores.set(fileId, score);
  }
  const files = [...byFile.keys()].sort((a, b) =>
    fileScores.get(b)! - fileScores.get(a)! ||
    (input.files.get(a)!.path < input.files.get(b)!.path ? -1 : 1)
  );
  // Rounds: every file's best chunk in file order, then every file's second, …
  const ranked: RankedChunk[] = [];
  const depth = Math.max(...[...byFile.values()].map((chunks) => chunks.length), 0);
  for (let round = 0; round < depth; round++) {
    for (const fileId of files) {
      const chunk = byFile.get(fileId)![round];
      if (!chunk) continue;
      const best = chunkScores.get(byFile.get(fileId)![0].id)! || 1;
      let matched = 0;
      for (const term of analysis.terms) {
        if (chunk.lexicalTerms?.has(term.term)) matched += term.weight;
      }
      ranked.push({
        chunk,
        score: fileScores.get(fileId)! * (chunkScores.get(chunk.id)! / best),
        matchedShare: totalWeight > 0 ? matched / totalWeight : 0,
      });
    }
  }
  return ranked;
}

/** Chunk scores in [0, 1] from the strategy's backends. */
function baseScores(input: RankInput): Map<number, number> {
  const scores = new Map<number, number>();
  const lexical = input.chunks.filter((chunk) => chunk.lexical !== undefined);
  const vector = input.chunks.filter((chunk) => chunk.vector !== undefined);
  const maxLexical = Math.max(0, ...lexical.map((chunk) => chunk.lexical!)) || 1;
  if (input.strategy === "lexical") {
    for (const chunk of lexical) scores.set(chunk.id, chunk.lexical! / maxLexical);
    return scores;
  }
  const maxVector = Math.max(0, ...vector.map((chunk) => chunk.vector!)) || 1;
  if (input.strategy === "vector") {
    for (const chunk of vector) scores.set(chunk.id, Math.max(0, chunk.vector!) / maxVector);
    return scores;
  }
  // Hybrid: reciprocal rank fusion of the two lists, scaled so the best possible is 1.
  const k = RANKING.rrfK;
  const lexicalRank = rankOf(lexical, (chunk) => chunk.lexical!);
  const vectorRank = rankOf(vector, (chunk) => chunk.vector!);
  for (const chunk of input.chunks) {
    const l = lexicalRank.get(chunk.id);
    const v = vectorRank.get(chunk.id);
    const fused = (l === undefined ? 0 : 1 / (k + l)) +
      (v === undefined ? 0 : RANKING.vectorWeight / (k + v));
    scores.set(chunk.id, (fused * (k + 1)) / (1 + RANKING.vectorWeight));
  }
  return scores;
}

function rankOf(chunks: RankChunk[], score: (chunk: RankChunk) => number): Map<number, number> {
  const sorted = [...chunks].sort((a, b) => score(b) - score(a));
  return new Map(sorted.map((chunk, i) => [chunk.id, i + 1]));
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
  const parts = symbolPath.split(/\.|::|\//);
  return parts[parts.length - 1];
}
