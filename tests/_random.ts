import type { RelationRow } from "../src/store/records.ts";

/** A small seeded generator (mulberry32), so every run checks the same inputs. */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What `randomRelations` draws from. */
export interface RelationVocabulary {
  names: string[];
  kinds: string[];
  owners: string[];
  /** The share of rows with no receiver. */
  noReceiver: number;
}

/** `count` random relation rows: mostly increasing lines, sometimes back (rows need not be sorted). */
export function randomRelations(
  next: () => number,
  count: number,
  vocabulary: RelationVocabulary,
): RelationRow[] {
  const { names, kinds, owners, noReceiver } = vocabulary;
  const pick = <T>(values: T[]) => values[Math.floor(next() * values.length)];
  const rows: RelationRow[] = [];
  let line = 1;
  for (let i = 0; i < count; i++) {
    line = Math.max(1, line + Math.floor(next() * 4) - (next() < 0.1 ? 5 : 0));
    const target = pick(names);
    const startCol = 1 + Math.floor(next() * 200);
    const spans = next() < 0.5;
    rows.push({
      kind: pick(kinds),
      from_symbol: next() < 0.2 ? null : pick(owners),
      target,
      receiver: next() < noReceiver ? null : pick(names),
      module: next() < 0.8 ? null : pick(["os", "./x", "crate::a"]),
      alias: next() < 0.9 ? null : pick(["np", "OD"]),
      start_line: line,
      start_col: startCol,
      end_line: spans ? line + Math.floor(next() * 3) : line,
      end_col: spans ? 1 + Math.floor(next() * 400) : startCol + target.length,
    });
  }
  return rows;
}
