/**
 * The order a context pack is filled in (pure): the bodies of the best
 * definitions first while they take at most a share of the budget, then the
 * neighbourhood of those definitions, then the remaining bodies, then the
 * remaining neighbourhood. Pieces keep their relative order within each group.
 * Also how well a definition's body answers a query's terms.
 */
import { codeTerms } from "./tokenizer.ts";

/** A piece to order: its cost in tokens, whether it is a body, and the definition it serves. */
export interface PackPiece {
  cost: number;
  body: boolean;
  seed: number;
}

/**
 * Indices of `pieces` in packing order. The first body always leads, however
 * large; later bodies lead only while all leading bodies cost at most
 * `share` × `budget`.
 */
export function packOrder(pieces: readonly PackPiece[], budget: number, share = 0.7): number[] {
  const leading: number[] = [];
  const later: number[] = [];
  const early = new Set<number>();
  let used = 0;
  pieces.forEach((piece, index) => {
    if (!piece.body) return;
    if (leading.length === 0 || used + piece.cost <= budget * share) {
      leading.push(index);
      used += piece.cost;
      early.add(piece.seed);
    } else {
      later.push(index);
    }
  });
  const neighbours = (first: boolean) =>
    pieces.flatMap((piece, index) => !piece.body && early.has(piece.seed) === first ? [index] : []);
  return [...leading, ...neighbours(true), ...later, ...neighbours(false)];
}

/** A query term with its weight in the query and its inverse document frequency. */
export interface ScoredTerm {
  term: string;
  weight: number;
  idf: number;
}

/**
 * How well one definition answers a query: for each query term its body
 * holds, weight × idf × (1 + log of how often); terms its name holds count
 * twice more; divided by a slowly growing function of the body's length so a
 * long body does not win by size alone.
 */
export function definitionScore(
  terms: readonly ScoredTerm[],
  body: readonly string[],
  name: readonly string[],
  lengthWeight = 0.3,
): number {
  const counts = new Map<string, number>();
  for (const term of body) counts.set(term, (counts.get(term) ?? 0) + 1);
  return countedScore(terms, { length: body.length, count: (term) => counts.get(term) ?? 0 }, {
    name,
    lengthWeight,
  });
}

/** `definitionScore` of a body known by its length and how often it holds each term. */
export function countedScore(
  terms: readonly ScoredTerm[],
  body: { length: number; count: (term: string) => number },
  options: { name: readonly string[]; lengthWeight?: number },
): number {
  const named = new Set(options.name);
  let score = 0;
  for (const { term, weight, idf } of terms) {
    const count = body.count(term);
    if (count > 0) score += weight * idf * (1 + Math.log(count));
    if (named.has(term)) score += 2 * weight * idf;
  }
  return score / (1 + (options.lengthWeight ?? 0.3) * Math.log(1 + body.length));
}

/** Separators a compact identifier drops (`compactIdentifier`). */
const SEPARATORS = /[._$:\-]+/g;
const ASCII = /^[\x00-\x7f]*$/;

/** The terms of lines `from..to` of a file: how many, and how many of a wanted one. */
export type LineCounts = (
  from: number,
  to: number,
) => { length: number; count: (term: string) => number };

/**
 * Running sums over a file's lines of its index terms and of each wanted term: the counts of
 * the lines `from..to` (as `slice`, both at least 0) are two lookups. A term never spans a
 * line break, so they are the counts of those lines' text tokenized whole. `sums[i]` counts
 * the terms of the lines before line `i`: given (the file's, from an earlier call), only lines
 * that may hold a wanted term are tokenized — in an ASCII line every term is a substring of the
 * lower-case line, or of it without separators (a compact identifier), so a line holding
 * neither holds none; not given, every line is, and they are returned for the next call.
 */
export function lineTermCounts(
  lines: readonly string[],
  wanted: readonly string[],
  known?: Int32Array,
): { sums: Int32Array; counts: LineCounts } {
  const slot = new Map(wanted.map((term, i) => [term, i]));
  const sums = known ?? new Int32Array(lines.length + 1);
  const each = wanted.map(() => new Int32Array(lines.length + 1));
  const mayHold = (line: string): boolean => {
    if (!ASCII.test(line)) return true;
    const lower = line.toLowerCase();
    if (wanted.some((term) => lower.includes(term))) return true;
    const compact = lower.replace(SEPARATORS, "");
    return compact.length !== lower.length && wanted.some((term) => compact.includes(term));
  };
  lines.forEach((line, i) => {
    for (const counts of each) counts[i + 1] = counts[i];
    if (!known) {
      const terms = codeTerms(line);
      sums[i + 1] = sums[i] + terms.length;
      for (const term of terms) {
        const at = slot.get(term);
        if (at !== undefined) each[at][i + 1]++;
      }
      return;
    }
    if (wanted.length === 0 || !mayHold(line)) return;
    for (const term of codeTerms(line)) {
      const at = slot.get(term);
      if (at !== undefined) each[at][i + 1]++;
    }
  });
  const counts: LineCounts = (from, to) => {
    const first = Math.min(Math.max(from, 0), lines.length);
    const last = Math.min(Math.max(to, first), lines.length);
    return {
      length: sums[last] - sums[first],
      count: (term) => {
        const at = slot.get(term);
        return at === undefined ? 0 : each[at][last] - each[at][first];
      },
    };
  };
  return { sums, counts };
}
