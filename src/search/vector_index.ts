/**
 * Chunk vectors of one generation held in memory for a brute-force scan.
 *
 * Layout: one contiguous Int8Array (rows × dimensions) with a float scale per
 * row, exactly as the target stores each vector (`engine/vector.ts`
 * `quantizedBytes`): at 100k chunks × 256 dimensions a full scan is one pass
 * over 25 MB. Loaded once per (target, generation, model) and kept on the
 * target's reader until its generation moves.
 */
import { readQuantized } from "../engine/vector.ts";
import { MemoKey, type TargetReader, type VectorRow } from "../store/reader.ts";

export interface VectorIndex {
  generation: number;
  model: string;
  dimensions: number;
  chunkIds: Int32Array;
  fileIds: Int32Array;
  values: Int8Array;
  scales: Float32Array;
}

/** A scored chunk of a vector scan. */
export interface VectorHit {
  chunkId: number;
  score: number;
}

/** The vector index of a target's current generation for a model, loaded on first use. */
export function vectorIndexFor(reader: TargetReader, model: string): VectorIndex {
  const key = new MemoKey<VectorIndex>(`search:vectors:${model}`);
  const generation = reader.generation();
  const index = reader.memo(
    key,
    () =>
      loadVectorIndex(reader.vectorRows(model), reader.fileTable().chunks, { model, generation }),
  );
  // An empty index is not kept: vectors may be stored later without a new generation.
  if (index.chunkIds.length === 0) reader.forget(key);
  return index;
}

/** Packs up to `total` chunk vectors (of one size) into the in-memory layout. */
export function loadVectorIndex(
  rows: Iterable<VectorRow>,
  total: number,
  options: { model: string; generation?: number },
): VectorIndex {
  const { model, generation = 0 } = options;
  let dimensions = 0;
  let chunkIds = new Int32Array(total);
  let fileIds = new Int32Array(total);
  let values = new Int8Array(0);
  let scales = new Float32Array(total);
  let row = 0;
  for (const entry of rows) {
    const vector = readQuantized(entry.vector);
    if (dimensions === 0) {
      dimensions = vector.values.length;
      values = new Int8Array(total * dimensions);
    }
    if (vector.values.length !== dimensions || row >= total) continue;
    values.set(vector.values, row * dimensions);
    scales[row] = vector.scale;
    chunkIds[row] = entry.chunkId;
    fileIds[row] = entry.fileId;
    row++;
  }
  if (row < total) {
    chunkIds = chunkIds.slice(0, row);
    fileIds = fileIds.slice(0, row);
    scales = scales.slice(0, row);
    values = values.slice(0, row * dimensions);
  }
  return { generation, model, dimensions, chunkIds, fileIds, values, scales };
}

/**
 * The `limit` chunks nearest a unit query vector by cosine, among chunks whose
 * file passes `allowFile` (checked before scoring, so nothing hidden is ranked).
 */
export function nearestChunks(
  index: VectorIndex,
  query: Float32Array,
  options: { limit: number; allowFile?: (fileId: number) => boolean },
): VectorHit[] {
  const { dimensions, values, scales } = index;
  if (dimensions === 0 || query.length !== dimensions) return [];
  // A bounded min-heap would save little here: keep a sorted top list with a floor.
  const topScores: number[] = [];
  const topRows: number[] = [];
  let floor = -Infinity;
  const rows = index.chunkIds.length;
  const allowed = new Map<number, boolean>();
  for (let row = 0; row < rows; row++) {
    if (options.allowFile) {
      const fileId = index.fileIds[row];
      let ok = allowed.get(fileId);
      if (ok === undefined) allowed.set(fileId, ok = options.allowFile(fileId));
      if (!ok) continue;
    }
    const offset = row * dimensions;
    // Four partial sums: fewer dependent additions per step.
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    let i = 0;
    for (; i + 4 <= dimensions; i += 4) {
      s0 += values[offset + i] * query[i];
      s1 += values[offset + i + 1] * query[i + 1];
      s2 += values[offset + i + 2] * query[i + 2];
      s3 += values[offset + i + 3] * query[i + 3];
    }
    for (; i < dimensions; i++) s0 += values[offset + i] * query[i];
    const score = (s0 + s1 + s2 + s3) * scales[row];
    if (score <= floor && topScores.length >= options.limit) continue;
    let at = topScores.length;
    while (at > 0 && topScores[at - 1] < score) at--;
    topScores.splice(at, 0, score);
    topRows.splice(at, 0, row);
    if (topScores.length > options.limit) {
      topScores.pop();
      topRows.pop();
    }
    if (topScores.length >= options.limit) floor = topScores[topScores.length - 1];
  }
  return topRows.map((row, i) => ({ chunkId: index.chunkIds[row], score: topScores[i] }));
}
