/**
 * Weighted lexical retrieval over the FTS5 index: each selected query term is
 * matched on its own (bm25 of one term is its idf-weighted, length-normalised
 * frequency), multiplied by the term's query weight and summed per chunk —
 * a weighted BM25 that FTS5's OR query cannot express.
 */
import type { WeightedTerm } from "../engine/query.ts";
import type { TargetReader } from "../store/reader.ts";

/**
 * Per chunk: the summed weighted bm25 and the selected terms it holds, as bits
 * (bit `i` for the `i`-th selected term; at most 32 are selected).
 */
export interface LexicalMatch {
  fileId: number;
  score: number;
  terms: number;
}

export interface SelectedTerm extends WeightedTerm {
  documents: number;
  idf: number;
}

/** Terms in more chunks than this share say too little to be worth a scan. */
const COMMON_SHARE = 0.15;
/** At most 32: a chunk's matched terms are the bits of one 32-bit integer. */
export const MAX_SELECTED = 32;
/** Rows read per term: enough for the best chunks of each. */
const ROWS_PER_TERM = 1500;

/**
 * Picks the terms worth matching: heaviest weight × idf, common ones dropped;
 * document frequencies from the target, or from the part a caller may see.
 */
export function selectTerms(
  reader: Pick<TargetReader, "termDocuments">,
  terms: WeightedTerm[],
  chunks: number,
): SelectedTerm[] {
  const selected: SelectedTerm[] = [];
  for (const entry of terms) {
    const documents = reader.termDocuments(entry.term);
    if (documents === 0) continue;
    const idf = Math.log(1 + (chunks - documents + 0.5) / (documents + 0.5));
    selected.push({ ...entry, documents, idf });
  }
  const rare = selected.filter((entry) => entry.documents <= chunks * COMMON_SHARE);
  // A query of only common words still gets an answer from its best few.
  const pool = rare.length > 0 ? rare : selected;
  return pool.sort((a, b) => b.weight * b.idf - a.weight * a.idf).slice(0, MAX_SELECTED);
}

/** Weighted bm25 per chunk over the selected terms, among files `allowFile` accepts. */
export function lexicalMatches(
  reader: TargetReader,
  terms: SelectedTerm[],
  allowFile: (fileId: number) => boolean,
): Map<number, LexicalMatch> {
  const matches = new Map<number, LexicalMatch>();
  const ranked = reader.termMatches(terms.map((term) => ftsPhrase(term.term)), ROWS_PER_TERM);
  terms.forEach((term, bit) => {
    const rows = ranked[bit];
    for (let i = 0; i < rows.length; i++) {
      const fileId = rows.fileIds[i];
      if (!allowFile(fileId)) continue;
      const chunkId = rows.chunkIds[i];
      let match = matches.get(chunkId);
      if (!match) matches.set(chunkId, match = { fileId, score: 0, terms: 0 });
      // bm25 is negative: more negative is better.
      match.score += term.weight * -rows.ranks[i];
      match.terms |= 1 << bit;
    }
  });
  return matches;
}

/** One term as an FTS5 string: quoted, so no user text is read as query syntax. */
export function ftsPhrase(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}
