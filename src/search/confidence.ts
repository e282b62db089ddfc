/**
 * Confidence labels for ranked search (`reliable`, `candidate`, `weak`). The
 * label rests on the top file's lead over the next file (the ratio of their
 * scores): calibrated on `deno task eval` over the 23 SWE-bench Lite rows and the first 100
 * denoland/std commit rows (123 queries), the top file was a gold file in
 *   lead ≥ 1.3        — 89% of hybrid answers (57/64), 91% lexical, 91% vector → `reliable`
 *   1.1 ≤ lead < 1.3  — 59% (16/27) hybrid, 60% lexical, 53% vector            → `candidate`
 *   lead < 1.1        — 50% (16/32) hybrid, 38% lexical, 36% vector            → `weak`
 * The share of query term weight the top hit holds is reported beside it but
 * did not separate right from wrong answers further, so it is not used.
 *
 * A query that writes identifiers none of which occurs anywhere in the index
 * (a renamed `retryWithBackoff` is now `retryWithJitter`) matched only parts of
 * them: whatever the lead, the answer is at best `candidate`.
 */
import type { Confidence } from "../protocol/types.ts";

export const CONFIDENCE = { reliableLead: 1.3, candidateLead: 1.1 };

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

/** Labels from the most to the least sure, for capping one label by another. */
const ORDER: Confidence[] = ["exact", "reliable", "candidate", "approximate", "weak"];

/** The less sure of two labels. */
export function atMost(label: Confidence, cap: Confidence): Confidence {
  return ORDER.indexOf(label) >= ORDER.indexOf(cap) ? label : cap;
}

/** The label of a ranked answer (best first). */
export function confidenceOf(
  ranked: { score: number; matchedShare: number; chunk: { path: string } }[],
): Confidence {
  const { lead } = confidenceFeatures(ranked);
  if (lead >= CONFIDENCE.reliableLead) return "reliable";
  if (lead >= CONFIDENCE.candidateLead) return "candidate";
  return "weak";
}
