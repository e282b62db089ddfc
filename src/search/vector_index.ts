/**
 * Chunk vectors of one generation held in memory for a brute-force scan.
 *
 * Layout: one contiguous Int8Array (rows × dimensions) with a float scale per
 * row. Stored vectors are float32 (SPEC §8); in memory they are quantised to
 * int8 — a quarter of the memory, and at 100k chunks × 256 dimensions a full
 * scan is one pass over 25 MB. Loaded once per (target, generation, model).
 */
import type { DatabaseSync } from "node:sqlite";
import { vectorFromBytes } from "../engine/vector.ts";

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

const cache = new Map<string, VectorIndex>();
/** Targets whose index is kept; the least recently used goes first. */
const MAX_CACHED = 8;

/** The vector index of a target at a generation, loaded on first use. */
export function vectorIndexFor(
  db: DatabaseSync,
  options: { key: string; generation: number; model: string },
): VectorIndex {
  const cacheKey = `${options.key}\0${options.model}`;
  const cached = cache.get(cacheKey);
  if (cached && cached.generation === options.generation) {
    cache.delete(cacheKey);
    cache.set(cacheKey, cached);
    return cached;
  }
  const index = loadVectorIndex(db, options.model, options.generation);
  cache.delete(cacheKey);
  cache.set(cacheKey, index);
  while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  return index;
}

/** Reads every chunk's vector for a model into the in-memory layout. */
export function loadVectorIndex(db: DatabaseSync, model: string, generation = 0): VectorIndex {
  const rows = db.prepare(
    `SELECT c.id AS id, c.file_id AS file_id, v.vector AS vector
       FROM source_chunks c JOIN chunk_vectors v
         ON v.content_hash = c.content_hash AND v.model = ?`,
  ).all(model) as { id: number; file_id: number; vector: Uint8Array }[];
  const dimensions = rows.length > 0 ? rows[0].vector.byteLength >> 2 : 0;
  const count = rows.filter((row) => row.vector.byteLength >> 2 === dimensions).length;
  const index: VectorIndex = {
    generation,
    model,
    dimensions,
    chunkIds: new Int32Array(count),
    fileIds: new Int32Array(count),
    values: new Int8Array(count * dimensions),
    scales: new Float32Array(count),
  };
  let row = 0;
  for (const entry of rows) {
    if (entry.vector.byteLength >> 2 !== dimensions) continue;
    const vector = vectorFromBytes(entry.vector);
    let max = 0;
    for (const value of vector) max = Math.max(max, Math.abs(value));
    const quantum = max === 0 ? 0 : 127 / max;
    const offset = row * dimensions;
    for (let i = 0; i < dimensions; i++) index.values[offset + i] = Math.round(vector[i] * quantum);
    index.scales[row] = max === 0 ? 0 : max / 127;
    index.chunkIds[row] = entry.id;
    index.fileIds[row] = entry.file_id;
    row++;
  }
  return index;
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
    let sum = 0;
    for (let i = 0; i < dimensions; i++) sum += values[offset + i] * query[i];
    const score = sum * scales[row];
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
