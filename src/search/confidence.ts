/**
 * Confidence labels for ranked search (SPEC §7, §8), from two features of the
 * answer: the top file's lead over the next file (ratio of their scores) and
 * the top hit's share of the query's term weight. Thresholds are calibrated
 * with `deno task eval` (figures in CONFIDENCE's comment).
 */
import type { Confidence } from "../protocol/types.ts";

export const CONFIDENCE = {
  reliable: { lead: 1.5, share: 0.3 },
  candidate: { lead: 1.15, share: 0.15 },
};

/** The features a label is computed from. */
export interface ConfidenceFeatures {
  lead: number;
  share: number;
}

/** The top hit's lead over the best hit from another file, and its matched share. */
export function confidenceFeatures(
  ranked: { score: number; matchedShare: number; chunk: { path: string } }[],
): ConfidenceFeatures {
  const top = ranked[0];
  if (!top || top.score <= 0) return { lead: 0, share: 0 };
  const other = ranked.find((entry) => entry.chunk.path !== top.chunk.path);
  const lead = other && other.score > 0 ? top.score / other.score : 10;
  return { lead: Math.min(10, Math.round(lead * 1000) / 1000), share: top.matchedShare };
}

/** The label of a ranked answer (best first). */
export function confidenceOf(
  ranked: { score: number; matchedShare: number; chunk: { path: string } }[],
): Confidence {
  const { lead, share } = confidenceFeatures(ranked);
  if (lead === 0) return "weak";
  const t = CONFIDENCE;
  if (lead >= t.reliable.lead && share >= t.reliable.share) return "reliable";
  if (lead >= t.candidate.lead || share >= t.candidate.share) return "candidate";
  return "weak";
}
