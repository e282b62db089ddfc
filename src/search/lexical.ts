/**
 * Weighted lexical retrieval over the FTS5 index: each selected query term is
 * matched on its own (bm25 of one term is its idf-weighted, length-normalised
 * frequency), multiplied by the term's query weight and summed per chunk —
 * a weighted BM25 that FTS5's OR query cannot express.
 */
import type { WeightedTerm } from "../engine/query.ts";
import type { ChunkColumns, TargetReader } from "../store/reader.ts";
import { selectValue } from "../engine/order.ts";
import { KeptBySize } from "../engine/kept.ts";

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

/** The cleared arrays of the last scores released, by chunk table size. */
const spares = new KeptBySize<{
  slots: Int32Array;
  rows: Int32Array;
  scores: Float64Array;
  terms: Int32Array;
  work: Float64Array;
}>(4);
const RELEASED = new Int32Array(0);

/**
 * Per chunk, addressed by its row in the reader's chunk columns: the summed
 * weighted bm25 and the selected terms it holds (bit `i` for the `i`-th
 * selected term). Chunks hold slots in the order they were first matched, the
 * order a map keyed by chunk would keep; no object is made per chunk.
 */
export class LexicalScores {
  /** Chunks matched. */
  size = 0;
  /** Per slot: the chunk's row, its score and its term bits. */
  rows: Int32Array;
  scores: Float64Array;
  terms: Int32Array;
  /** Per row: its slot + 1, or 0 when the chunk matched no term. */
  #slots: Int32Array;

  /** Scratch for `best`'s selection. */
  #work: Float64Array;

  constructor(tableRows: number, capacity = 64) {
    // The arrays the last released scores of a table this size left (all cleared).
    const kept = spares.take(tableRows) ?? null;
    this.#slots = kept?.slots ?? new Int32Array(tableRows);
    const length = Math.max(1, capacity);
    const fits = kept !== null && kept.rows.length >= length;
    this.rows = fits ? kept.rows : new Int32Array(length);
    this.scores = fits ? kept.scores : new Float64Array(length);
    this.terms = fits ? kept.terms : new Int32Array(length);
    this.#work = kept?.work ?? new Float64Array(0);
  }

  /** Adds `score` and term bit `bit` to a row's sums. */
  add(row: number, score: number, bit: number): void {
    let slot = this.#slots[row] - 1;
    if (slot < 0) {
      if (this.size === this.rows.length) this.#grow();
      slot = this.size++;
      this.#slots[row] = slot + 1;
      this.rows[slot] = row;
    }
    this.scores[slot] += score;
    this.terms[slot] |= 1 << bit;
  }

  /** A row's slot, or -1 when it matched no term. */
  slotOf(row: number): number {
    return this.#slots[row] - 1;
  }

  /**
   * The slots of the `count` best scores, in slot order: every slot above the
   * `count`-th best score and the earliest at it (the first `count` of a stable
   * sort by score, as a set).
   */
  best(count: number): Int32Array {
    const size = this.size;
    if (size <= count) return Int32Array.from({ length: size }, (_, slot) => slot);
    if (count <= 0) return new Int32Array(0);
    if (this.#work.length < size) this.#work = new Float64Array(this.scores.length);
    const work = this.#work.subarray(0, size);
    work.set(this.scores.subarray(0, size));
    const threshold = selectValue(work, size - count);
    let room = count;
    for (let slot = 0; slot < size; slot++) if (this.scores[slot] > threshold) room--;
    const kept = new Int32Array(count);
    let at = 0;
    for (let slot = 0; slot < size; slot++) {
      const score = this.scores[slot];
      if (score > threshold || (score === threshold && room-- > 0)) kept[at++] = slot;
    }
    return kept;
  }

  /**
   * Hands the arrays back, cleared, for the next scores of a table this size: a search then
   * allocates no array per chunk row or per term row (off-heap memory V8's heap limit does not
   * see; freed only at its next collection). Nothing may be read or added after.
   */
  release(): void {
    for (let slot = 0; slot < this.size; slot++) this.#slots[this.rows[slot]] = 0;
    this.scores.fill(0, 0, this.size);
    this.terms.fill(0, 0, this.size);
    spares.give(this.#slots.length, {
      slots: this.#slots,
      rows: this.rows,
      scores: this.scores,
      terms: this.terms,
      work: this.#work,
    });
    this.#slots = RELEASED;
    this.size = 0;
  }

  #grow(): void {
    const grown = this.rows.length * 2;
    const rows = new Int32Array(grown);
    rows.set(this.rows);
    const scores = new Float64Array(grown);
    scores.set(this.scores);
    const terms = new Int32Array(grown);
    terms.set(this.terms);
    this.rows = rows;
    this.scores = scores;
    this.terms = terms;
  }
}

/**
 * Weighted bm25 per chunk over the selected terms, among files `allowFile`
 * accepts; chunks by their row in `columns` (a chunk not in them is left out).
 */
export function lexicalMatches(
  reader: TargetReader,
  terms: SelectedTerm[],
  allowFile: (fileId: number) => boolean,
  columns: ChunkColumns,
): LexicalScores {
  const ranked = reader.termMatches(terms.map((term) => ftsPhrase(term.term)), ROWS_PER_TERM);
  let capacity = 0;
  for (const rows of ranked) capacity += rows.length;
  const matches = new LexicalScores(columns.ids.length, capacity);
  terms.forEach((term, bit) => {
    const rows = ranked[bit];
    for (let i = 0; i < rows.length; i++) {
      if (!allowFile(rows.fileIds[i])) continue;
      const row = columns.rows.get(rows.chunkIds[i]);
      if (row === undefined) continue;
      // bm25 is negative: more negative is better.
      matches.add(row, term.weight * -rows.ranks[i], bit);
    }
  });
  return matches;
}

/** One term as an FTS5 string: quoted, so no user text is read as query syntax. */
export function ftsPhrase(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}
