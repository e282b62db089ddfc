/**
 * The order a context pack is filled in (pure): the bodies of the best
 * definitions first while they take at most a share of the budget, then the
 * neighbourhood of those definitions, then the remaining bodies, then the
 * remaining neighbourhood. Pieces keep their relative order within each group.
 */

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
  const named = new Set(name);
  let score = 0;
  for (const { term, weight, idf } of terms) {
    const count = counts.get(term) ?? 0;
    if (count > 0) score += weight * idf * (1 + Math.log(count));
    if (named.has(term)) score += 2 * weight * idf;
  }
  return score / (1 + lengthWeight * Math.log(1 + body.length));
}
