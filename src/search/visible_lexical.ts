/**
 * Lexical retrieval for a caller who sees only some paths of a target: bm25
 * computed as FTS5 computes it (k1 1.2, b 0.75, code terms weighing 1 and
 * path terms 2), but over the visible chunks only — their count, their average
 * length and the term's document frequency among them — so a hidden file that
 * holds a query term changes no score, idf or selection the caller is shown.
 * FTS5's own bm25 counts every row of the table, hidden ones included.
 *
 * Slower than FTS5's ranking (every occurrence of a term is read), which is
 * why callers who see every path never come here.
 */
import type { WeightedTerm } from "../engine/query.ts";
import type { ChunkColumns, TargetReader, TermOccurrence } from "../store/reader.ts";
import { chunkSizes, type PathRule, type VisibleView, visibleView } from "../workspace/visible.ts";
import { LexicalScores } from "./lexical.ts";

const K1 = 1.2;
const B = 0.75;
/** Column weights, as `TargetReader.termMatches` gives them to FTS5's bm25. */
const WEIGHTS = { terms: 1, path: 2 };
/** Rows kept per term, as the unrestricted path reads them. */
const ROWS_PER_TERM = 1500;

/** The full-text statistics of the visible part of one generation, for one request. */
export class VisibleLexicon {
  readonly #reader: TargetReader;
  readonly #view: VisibleView;
  readonly #occurrences = new Map<string, TermOccurrence[]>();

  constructor(reader: TargetReader, view: VisibleView) {
    this.#reader = reader;
    this.#view = view;
  }

  /** Visible chunks (the bm25 row count). */
  get chunks(): number {
    return this.#view.chunks;
  }

  /** Visible chunks that hold a term. */
  termDocuments(term: string): number {
    return this.#visible(term).length;
  }

  /**
   * Weighted bm25 per visible chunk over the selected terms (at most 32: bit `i`
   * of a match's `terms` is the `i`-th), among files `allowFile` accepts; chunks
   * by their row in `columns` (a chunk not in them is left out).
   */
  matches(
    terms: (WeightedTerm & { documents: number })[],
    allowFile: (fileId: number) => boolean,
    columns: ChunkColumns,
  ): LexicalScores {
    const matches = new LexicalScores(columns.ids.length);
    const rows = this.#view.chunks;
    if (rows === 0) return matches;
    const average = this.#view.tokens / rows || 1;
    const sizes = chunkSizes(this.#reader);
    terms.forEach((term, bit) => {
      const hits = this.#visible(term.term);
      let idf = Math.log((rows - hits.length + 0.5) / (hits.length + 0.5));
      if (idf <= 0) idf = 1e-6;
      const scored = hits.map((hit) => {
        const frequency = hit.terms * WEIGHTS.terms + hit.path * WEIGHTS.path;
        const length = sizes.get(hit.chunkId)?.tokens ?? average;
        const score = idf * (frequency * (K1 + 1)) /
          (frequency + K1 * (1 - B + (B * length) / average));
        return { hit, score };
      });
      // Best first; equal scores in the chunk table's (content) order, as for every caller.
      const place = (hit: TermOccurrence) => columns.rows.get(hit.chunkId) ?? columns.ids.length;
      scored.sort((a, b) => b.score - a.score || place(a.hit) - place(b.hit));
      for (const { hit, score } of scored.slice(0, ROWS_PER_TERM)) {
        if (!allowFile(hit.fileId)) continue;
        const row = columns.rows.get(hit.chunkId);
        if (row !== undefined) matches.add(row, term.weight * score, bit);
      }
    });
    return matches;
  }

  #visible(term: string): TermOccurrence[] {
    let rows = this.#occurrences.get(term);
    if (!rows) {
      rows = this.#reader.termOccurrences(term).filter((row) => this.#view.files.has(row.fileId));
      this.#occurrences.set(term, rows);
    }
    return rows;
  }
}

/**
 * Where a caller's term statistics come from: the whole target for a caller who
 * sees every path (FTS5's own), else the part its path rule shows.
 */
export function lexicalStatistics(
  reader: TargetReader,
  rule: PathRule | null,
): { termDocuments: (term: string) => number; chunks: number; lexicon: VisibleLexicon | null } {
  if (!rule) {
    return {
      termDocuments: (term) => reader.termDocuments(term),
      chunks: reader.fileTable().chunks,
      lexicon: null,
    };
  }
  const lexicon = new VisibleLexicon(reader, visibleView(reader, rule));
  return { termDocuments: (term) => lexicon.termDocuments(term), chunks: lexicon.chunks, lexicon };
}
