/**
 * The ranker's cheaper arithmetic (chunks grouped by file in one typed array,
 * ranks without a comparator, shares per set of term bits) must order and
 * score chunks exactly as the plain version below did, ties included.
 */
import assert from "node:assert/strict";
import { codeTerms, compactIdentifier } from "../src/engine/tokenizer.ts";
import { analyzeQuery, pathMatchesMention } from "../src/engine/query.ts";
import {
  isConfigPath,
  isDocPath,
  isTestPath,
  isVendorPath,
  type RankChunk,
  rankChunks,
  type RankedChunk,
  type RankFile,
  RANKING,
  type RankInput,
  type Strategy,
} from "../src/search/rank.ts";
import { seededRandom } from "./_random.ts";

const PATHS = [
  "src/retry/backoff.ts",
  "src/retry/index.ts",
  "tests/test_backoff.py",
  "docs/retry.md",
  "config/.settings/app.json",
  "vendor/lib/backoff.js",
  "pkg/tokens.py",
  "pkg/sub/tokens.py",
];
const SYMBOLS = [null, "Backoff", "Backoff.delay", "retry::again", "count_tokens", "mod/retry"];
const QUERIES = [
  "backoff delay",
  "retry a request with exponential backoff",
  "count_tokens in pkg/tokens.py line 3",
  "fix(retry): Backoff.delay",
];

Deno.test("chunks are ranked as the plain ranker ranked them, ties included", () => {
  const next = seededRandom(21);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
  for (let round = 0; round < 400; round++) {
    const files = new Map<number, RankFile>();
    PATHS.forEach((path, i) => {
      if (next() < 0.8) {
        files.set(i + 1, { path, language: path.endsWith(".md") ? "markdown" : null });
      }
    });
    const fileIds = [...files.keys()];
    if (fileIds.length === 0) continue;
    const analysis = analyzeQuery(pick(QUERIES));
    const selected = analysis.terms.filter(() => next() < 0.8);
    const termIdf = new Map(selected.map((term) => [term.term, Math.floor(next() * 4) / 2]));
    // Few distinct scores: equal chunk and file scores are common.
    const chunks: RankChunk[] = Array.from({ length: Math.floor(next() * 40) }, (_, i) => ({
      id: 100 + i,
      fileId: pick(fileIds),
      path: "",
      startLine: 1 + Math.floor(next() * 5),
      endLine: 9,
      kind: next() < 0.5 ? "definition" : "block",
      symbolPath: pick(SYMBOLS),
      lexical: next() < 0.7 ? Math.floor(next() * 4) : undefined,
      lexicalTerms: next() < 0.7 ? Math.floor(next() * 2 ** selected.length) : undefined,
      vector: next() < 0.5 ? Math.floor(next() * 3) / 4 : undefined,
    }));
    for (const chunk of chunks) chunk.path = files.get(chunk.fileId)!.path;
    const input: RankInput = {
      strategy: pick<Strategy>(["hybrid", "lexical", "vector"]),
      analysis,
      termIdf,
      chunks,
      files,
      definitions: new Map(fileIds.filter(() => next() < 0.3).map((id) => [id, next()])),
      pinned: new Set(chunks.filter(() => next() < 0.1).map((chunk) => chunk.id)),
    };
    assert.deepEqual(rankChunks(input), plainRankChunks(input), `round ${round}`);
    // The caller's name for where the chunks came from is on every entry.
    const tag = { name: `repo-${round}` };
    assert.ok(rankChunks(input, tag).every((entry) => entry.repo === tag));
  }
});

/** The ranker as it was written before: maps, arrays and comparator sorts. */
function plainRankChunks(input: RankInput): RankedChunk[] {
  const { analysis, chunks } = input;
  const base = plainBaseScores(input);
  const totalWeight = analysis.terms.reduce(
    (sum, term) => sum + (input.termIdf.has(term.term) ? term.weight : 0),
    0,
  );
  const selected = new Map([...input.termIdf.keys()].map((term, bit) => [term, bit]));
  const termBits = analysis.terms.map((term) => selected.get(term.term) ?? -1);
  const identifierNames = new Set(analysis.identifiers.map((word) => compactIdentifier(word)));
  const chunkScores = chunks.map((chunk, at) => {
    let score = base[at];
    if (chunk.symbolPath && identifierNames.size > 0) {
      const parts = chunk.symbolPath.split(/\.|::|\//);
      if (identifierNames.has(compactIdentifier(parts[parts.length - 1]))) {
        score += RANKING.symbolName * Math.max(score, 0.2);
      }
    }
    if (chunk.kind === "definition") score *= 1 + RANKING.definitionKind;
    if (input.pinned.has(chunk.id)) score += RANKING.pinned;
    return score;
  });
  const byFile = new Map<number, number[]>();
  chunks.forEach((chunk, at) => byFile.set(chunk.fileId, [...byFile.get(chunk.fileId) ?? [], at]));
  const fileScores = new Map<number, number>();
  const pathTermTotal = [...input.termIdf.values()].reduce((a, b) => a + b, 0) || 1;
  for (const [fileId, own] of byFile) {
    own.sort((a, b) =>
      chunkScores[b] - chunkScores[a] || chunks[a].startLine - chunks[b].startLine
    );
    const scores = own.map((at) => chunkScores[at]);
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
    for (const scope of analysis.scopes) {
      if (file.path.split("/")[0] === scope.split("/").filter(Boolean)[0]) {
        mention = Math.max(mention, 0.5);
      }
    }
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
  const ranked: RankedChunk[] = [];
  let open = files.map((fileId) => ({ fileId, own: byFile.get(fileId)! }));
  for (let round = 0; open.length > 0; round++) {
    for (const { fileId, own } of open) {
      const at = own[round];
      const chunk = chunks[at];
      const best = chunkScores[own[0]] || 1;
      let matched = 0;
      const bits = chunk.lexicalTerms ?? 0;
      for (let i = 0; i < termBits.length; i++) {
        if (termBits[i] >= 0 && (bits >>> termBits[i]) & 1) matched += analysis.terms[i].weight;
      }
      ranked.push({
        chunk,
        score: fileScores.get(fileId)! * (chunkScores[at] / best),
        matchedShare: totalWeight > 0 ? matched / totalWeight : 0,
        round,
        file: input.files.get(fileId)!,
        repo: null,
      });
    }
    open = open.filter(({ own }) => own.length > round + 1);
  }
  return ranked;
}

function plainBaseScores(input: RankInput): number[] {
  const { chunks } = input;
  const lexical = chunks.flatMap((chunk, at) => chunk.lexical === undefined ? [] : [at]);
  const vector = chunks.flatMap((chunk, at) => chunk.vector === undefined ? [] : [at]);
  const maxLexical = Math.max(0, ...lexical.map((at) => chunks[at].lexical!)) || 1;
  const maxVector = Math.max(0, ...vector.map((at) => chunks[at].vector!)) || 1;
  const scores = chunks.map(() => 0);
  if (input.strategy === "lexical") {
    for (const at of lexical) scores[at] = chunks[at].lexical! / maxLexical;
    return scores;
  }
  if (input.strategy === "vector") {
    for (const at of vector) scores[at] = Math.max(0, chunks[at].vector!) / maxVector;
    return scores;
  }
  const k = RANKING.rrfK;
  const rankOf = (list: number[], score: (at: number) => number) => {
    const ranks = chunks.map(() => 0);
    [...list].sort((a, b) => score(b) - score(a)).forEach((at, rank) => ranks[at] = rank + 1);
    return ranks;
  };
  const lexicalRank = rankOf(lexical, (at) => chunks[at].lexical!);
  const vectorRank = rankOf(vector, (at) => chunks[at].vector!);
  return chunks.map((_, at) => {
    const l = lexicalRank[at];
    const v = vectorRank[at];
    const fused = (l === 0 ? 0 : 1 / (k + l)) + (v === 0 ? 0 : RANKING.vectorWeight / (k + v));
    return (fused * (k + 1)) / (1 + RANKING.vectorWeight);
  });
}
