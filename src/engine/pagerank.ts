/**
 * PageRank over a weighted directed graph, optionally personalised (pure).
 *
 * The random surfer follows an out-edge with probability `damping` (choosing
 * edges in proportion to their weight) and otherwise jumps to a node drawn from
 * the personalisation vector (uniform when none is given). A node without
 * out-edges hands its whole rank to the personalisation vector, so rank is
 * conserved and always sums to 1. Iterates until the L1 change is below
 * `tolerance` or `maxIterations` is reached.
 */

/** A weighted edge between node indices. */
export interface WeightedEdge {
  from: number;
  to: number;
  weight: number;
}

export interface PageRankOptions {
  /** Probability of following an edge rather than jumping (default 0.85). */
  damping?: number;
  /** Jump weights per node (need not sum to 1; negative entries count as 0); absent: uniform. */
  personalization?: ArrayLike<number> | null;
  tolerance?: number;
  maxIterations?: number;
}

export interface PageRankResult {
  ranks: Float64Array;
  iterations: number;
  converged: boolean;
}

/**
 * The out-edges of a graph as compressed rows, each weight normalised by its
 * source's total (self-loops and non-positive weights left out). Build it once
 * per graph and rank it under as many options as needed.
 */
export interface LinkMatrix {
  nodeCount: number;
  /** Node i's out-edges are `targets` / `shares` from `start[i]` to `start[i + 1]`. */
  start: Int32Array;
  targets: Int32Array;
  shares: Float64Array;
}

/** The link matrix of `nodeCount` nodes over `edges`. */
export function linkMatrix(nodeCount: number, edges: readonly WeightedEdge[]): LinkMatrix {
  const outWeight = new Float64Array(nodeCount);
  const kept = edges.filter((e) =>
    e.from !== e.to && e.weight > 0 && e.from >= 0 && e.to >= 0 && e.from < nodeCount &&
    e.to < nodeCount
  );
  for (const edge of kept) outWeight[edge.from] += edge.weight;
  const start = new Int32Array(nodeCount + 1);
  for (const edge of kept) start[edge.from + 1]++;
  for (let i = 0; i < nodeCount; i++) start[i + 1] += start[i];
  const fill = start.slice(0, nodeCount);
  const targets = new Int32Array(kept.length);
  const shares = new Float64Array(kept.length);
  for (const edge of kept) {
    const at = fill[edge.from]++;
    targets[at] = edge.to;
    shares[at] = edge.weight / outWeight[edge.from];
  }
  return { nodeCount, start, targets, shares };
}

/** PageRank of `nodeCount` nodes over `edges` (self-loops and non-positive weights ignored). */
export function pageRank(
  nodeCount: number,
  edges: readonly WeightedEdge[],
  options: PageRankOptions = {},
): PageRankResult {
  return rankLinks(linkMatrix(nodeCount, edges), options);
}

/** PageRank over a link matrix built before. */
export function rankLinks(links: LinkMatrix, options: PageRankOptions = {}): PageRankResult {
  const { nodeCount, start, targets, shares } = links;
  const damping = options.damping ?? 0.85;
  const tolerance = options.tolerance ?? 1e-8;
  const maxIterations = options.maxIterations ?? 100;
  if (nodeCount === 0) return { ranks: new Float64Array(0), iterations: 0, converged: true };
  const jump = jumpVector(nodeCount, options.personalization ?? null);
  let ranks = Float64Array.from(jump);
  let next = new Float64Array(nodeCount);
  let iterations = 0;
  let converged = false;
  while (iterations < maxIterations) {
    iterations++;
    let dangling = 0;
    next.fill(0);
    for (let node = 0; node < nodeCount; node++) {
      const rank = ranks[node];
      if (start[node] === start[node + 1]) {
        dangling += rank;
        continue;
      }
      for (let at = start[node]; at < start[node + 1]; at++) {
        next[targets[at]] += damping * rank * shares[at];
      }
    }
    // The jump mass: what was not passed along an edge, dangling nodes' rank included.
    const spread = 1 - damping + damping * dangling;
    let change = 0;
    for (let node = 0; node < nodeCount; node++) {
      next[node] += spread * jump[node];
      change += Math.abs(next[node] - ranks[node]);
    }
    [ranks, next] = [next, ranks];
    if (change < tolerance) {
      converged = true;
      break;
    }
  }
  return { ranks, iterations, converged };
}

/**
 * How much rank each edge carries at the fixed point: its source's rank times
 * its share of the source's out-weight (Aider ranks definitions by the rank
 * that flows into them this way). `outWeight` is `outWeights` of the same edges.
 */
export function edgeFlow(
  ranks: ArrayLike<number>,
  outWeight: ArrayLike<number>,
  edge: WeightedEdge,
): number {
  return passesRank(edge, ranks.length) ? ranks[edge.from] * edge.weight / outWeight[edge.from] : 0;
}

/** Each node's total out-weight over the edges that pass rank along (the shares' denominators). */
export function outWeights(nodeCount: number, edges: readonly WeightedEdge[]): Float64Array {
  const outWeight = new Float64Array(nodeCount);
  for (const edge of edges) if (passesRank(edge, nodeCount)) outWeight[edge.from] += edge.weight;
  return outWeight;
}

function passesRank(edge: WeightedEdge, nodeCount: number): boolean {
  return edge.from !== edge.to && edge.weight > 0 && edge.from >= 0 && edge.from < nodeCount;
}

/** The personalisation vector normalised to sum 1; uniform when absent or all zero. */
function jumpVector(nodeCount: number, weights: ArrayLike<number> | null): Float64Array {
  const jump = new Float64Array(nodeCount);
  let total = 0;
  if (weights) {
    for (let i = 0; i < nodeCount; i++) {
      const w = Number(weights[i] ?? 0);
      jump[i] = Number.isFinite(w) && w > 0 ? w : 0;
      total += jump[i];
    }
  }
  if (total === 0) return jump.fill(1 / nodeCount);
  for (let i = 0; i < nodeCount; i++) jump[i] /= total;
  return jump;
}
