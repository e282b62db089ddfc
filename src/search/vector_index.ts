/**
 * Chunk vectors of one generation held in memory for a brute-force scan.
 *
 * Layout: one WebAssembly memory, shared (a SharedArrayBuffer), holding every
 * row's int8 values exactly as the target stores them (`engine/vector.ts`
 * `quantizedBytes`) by column (dimension 0 of every row, then dimension 1, …;
 * columns padded to 16 rows), the rows' scales, chunk ids, file ids and content
 * hashes, and a few scratch slots for scans. The SIMD kernel (`vector_kernel.ts`)
 * adds up, per row, the columns of the query's non-zero dimensions times an int16
 * query (a hashing query has a few dozen of 256: that many columns are read);
 * the best rows are then scored again exactly (float query) and the top
 * `limit` returned, so the answer is the exact scan's.
 *
 * An index is loaded once per (target, generation, model) and kept on the
 * target's reader until its generation moves; the next generation's copies the
 * values of the chunks it still holds from it. Because its memory is shared,
 * one copy serves every thread of a process: the daemon's query Workers hand
 * the indexes they load to the pool (`takeLoadedIndexes`), which gives them to
 * the other Workers (`adoptIndexes`).
 */
import { HASH_MODEL_ID, readQuantized } from "../engine/vector.ts";
import { selectValue, stableOrder } from "../engine/order.ts";
import { KeptBySize } from "../engine/kept.ts";
import { MemoKey, type TargetReader, type VectorRow } from "../store/reader.ts";
import {
  COLUMNS_PER_PASS,
  LANES,
  packWeights,
  PASS_INTS,
  type ScoreFunction,
  scoreFunction,
} from "./vector_kernel.ts";

/** Scans that can run at once on one index (one per thread at a time; more wait in JS). */
const SLOTS = 8;
const PAGE = 65_536;
/** Rows scored again exactly per row asked for (the int16 query's rounding reorders only near-ties). */
const RESCORE_FACTOR = 2;
const RESCORE_EXTRA = 32;
/** The int16 query's largest magnitude (kept so sums of products stay within int32). */
const QUERY_MAX = 32_767;

/** What another thread needs to use an index: its memory and its shape. */
export interface SharedVectorIndex {
  /** Target identity (database path), model and generation. */
  target: string;
  model: string;
  generation: number;
  dimensions: number;
  rows: number;
  memory: WebAssembly.Memory;
  /** Whether it was made from a target's rows (`generationIndex`): its chunk ids are the
   * target's, and `hashes` holds each row's content hash. */
  hashed: boolean;
  /**
   * The build of the target it was loaded from (its `created_at`): a rebuild stores vectors
   * again, and an embedding provider need not give the same values twice.
   */
  build: string;
}

export interface VectorIndex extends SharedVectorIndex {
  /** Rows a column holds (the rows, padded to a multiple of 16): dimension `d` of row `r` is
   * `values[d * column + r]`. */
  column: number;
  values: Int8Array;
  scales: Float32Array;
  chunkIds: Int32Array;
  fileIds: Int32Array;
  /** Each row's chunk content hash (when `hashed`). */
  hashes: Float64Array;
  /** One flag per scratch slot: 1 while a scan uses it. */
  locks: Int32Array;
  /** Byte offset and size of the scratch slots (the query's columns and weights, then one
   * int32 per row). */
  slotBase: number;
  slotBytes: number;
  /** Byte offset of a slot's sums after its list of columns. */
  slotSums: number;
  score: ScoreFunction | null;
}

/** A scored chunk of a vector scan. */
export interface VectorHit {
  chunkId: number;
  score: number;
}

/** Indexes known to this thread, by target and model (the latest generation each). */
const known = new Map<string, VectorIndex>();
/** Indexes this thread loaded and has not handed out yet. */
const loaded: SharedVectorIndex[] = [];

/**
 * The vector index of a target's current generation for a model, loaded on first use: rows in
 * the chunk table's (content) order, each chunk that has a vector of the model. The values of a
 * chunk, or of a content, the index of an earlier generation held (this thread's, or one adopted
 * from another) are copied from it; only the others are read from the target, all of them when
 * most are new.
 * Reading every vector and putting them in content order took 216-318 ms on sympy (25k chunks)
 * for each new generation in each query Worker, while every request behind it waited; a
 * generation after a one-file refresh now reads a few rows.
 */
export function vectorIndexFor(reader: TargetReader, model: string): VectorIndex {
  const key = new MemoKey<VectorIndex>(`search:vectors:${model}`);
  const generation = reader.generation();
  const index = reader.memo(key, () => {
    const adopted = known.get(`${reader.target}\0${model}`);
    if (adopted && adopted.generation === generation) return adopted;
    const made = generationIndex(reader, model, generation, adopted ?? null);
    if (made.rows > 0) {
      known.set(`${made.target}\0${model}`, made);
      loaded.push(share(made));
    }
    return made;
  });
  // An empty index is not kept: vectors may be stored later without a new generation.
  if (index.rows === 0) reader.forget(key);
  return index;
}

/** Reads all of the model's vectors rather than some when more than this share is new. */
const READ_ALL_SHARE = 0.25;
/** A chunk's source in `generationIndex`: read from the target, or no row at all. */
const READ = -1;
const LEFT_OUT = -2;

/**
 * The index of a reader's generation: the values of chunks and contents `previous` (an index of
 * an earlier generation of the same target and model, or null) holds are copied from it, the
 * others read.
 */
export function generationIndex(
  reader: TargetReader,
  model: string,
  generation: number,
  previous: VectorIndex | null,
): VectorIndex {
  const table = reader.chunkColumns();
  const count = table.ids.length;
  const build = reader.meta("created_at") ?? "";
  // The rows of the earlier index whose chunks this generation still holds, found by chunk id:
  // in one build of the target a chunk id is never reused and a chunk row never rewritten (it
  // goes only with its file's row), so a chunk held by both generations was held by every one
  // between them, its content never an orphan, its stored vector never dropped nor stored
  // again: the same values, for an embedding provider's model too.
  if (!previous?.hashed || previous.build !== build) previous = null;
  // Each chunk's source in content order: a row of `previous`, READ or LEFT_OUT.
  const from = new Int32Array(count).fill(READ);
  let reading = count;
  if (previous) {
    for (let row = 0; row < previous.rows; row++) {
      const at = table.rows.get(previous.chunkIds[row]);
      if (at === undefined) continue;
      from[at] = row;
      reading--;
    }
  }
  // New rows whose content the earlier index holds (an edited file's unchanged definitions)
  // are copied too, found by content hash: a hashing vector is all its key says (symbol path
  // and text). An embedding provider's vector dropped as an orphan may be stored again with
  // other values, so for its models only the generation just before is a source (a content
  // held by both was never dropped between them).
  if (
    previous && reading > 0 &&
    (model === HASH_MODEL_ID || previous.generation === generation - 1)
  ) {
    const wanted = new Set<number>();
    for (let at = 0; at < count; at++) if (from[at] === READ) wanted.add(table.hashes[at]);
    const held = new Map<number, number>();
    for (let row = 0; row < previous.rows; row++) {
      const hash = previous.hashes[row];
      if (wanted.has(hash) && !held.has(hash)) held.set(hash, row);
    }
    for (let at = 0; at < count && held.size > 0; at++) {
      if (from[at] !== READ) continue;
      const row = held.get(table.hashes[at]);
      if (row === undefined) continue;
      from[at] = row;
      reading--;
    }
  }
  let missing: number[] | null = null; // null: read all of the model's vectors
  if (reading <= count * READ_ALL_SHARE) {
    missing = [];
    for (let at = 0; at < count; at++) if (from[at] === READ) missing.push(table.hashes[at]);
  }
  const read = stagedVectors(reader, model, missing, missing?.length ?? count);
  // The first vector decides the dimensions, and a vector of other dimensions is left out (as
  // `loadVectorIndex` does).
  const fresh: ({ scale: number; values: Int8Array } | undefined)[] = [];
  let dimensions = 0;
  let rows = 0;
  for (let at = 0; at < count; at++) {
    let length: number;
    if (from[at] >= 0) {
      length = previous!.dimensions;
    } else {
      const bytes = read.get(table.hashes[at]);
      if (bytes === undefined) {
        from[at] = LEFT_OUT;
        continue;
      }
      const vector = readQuantized(bytes);
      length = vector.values.length;
      fresh[at] = vector;
    }
    if (dimensions === 0) dimensions = length;
    if (length !== dimensions || dimensions === 0) from[at] = LEFT_OUT;
    else rows++;
  }
  const index = allocate({
    target: reader.target,
    model,
    generation,
    dimensions,
    rows,
    hashed: true,
    build,
  });
  const sources = new Int32Array(rows);
  let row = 0;
  for (let chunk = 0; chunk < count; chunk++) {
    if (from[chunk] === LEFT_OUT) continue;
    sources[row] = from[chunk];
    index.chunkIds[row] = table.ids[chunk];
    index.fileIds[row] = table.fileIds[chunk];
    index.hashes[row] = table.hashes[chunk];
    if (from[chunk] >= 0) index.scales[row] = previous!.scales[from[chunk]];
    else writeRow(index, row, fresh[chunk]!);
    row++;
  }
  // The copied values, a column at a time, by runs of rows that follow each other in both
  // indexes (after a small refresh, nearly all of them are a few runs).
  if (previous && previous.dimensions === dimensions) {
    const runs: number[] = []; // [first row, first source row, length]…
    for (let r = 0; r < rows; r++) {
      if (sources[r] < 0) continue;
      const last = runs.length - 3;
      if (
        last >= 0 && runs[last] + runs[last + 2] === r &&
        runs[last + 1] + runs[last + 2] === sources[r]
      ) {
        runs[last + 2]++;
      } else runs.push(r, sources[r], 1);
    }
    for (let d = 0; d < dimensions; d++) {
      const source = d * previous.column;
      const target = d * index.column;
      for (let k = 0; k < runs.length; k += 3) {
        const from = source + runs[k + 1];
        index.values.set(previous.values.subarray(from, from + runs[k + 2]), target + runs[k]);
      }
    }
  }
  return index;
}

/**
 * The stored vectors of a model (of `hashes`, or all of them), by content hash, copied as they
 * are read into one buffer of `capacity` slots of the first vector's size (a vector of another
 * size, or past the capacity, is kept on its own). Each row read is dropped at once: a new
 * generation's index read every vector as a row of its own first, and at 134k chunks
 * (a 5M-line corpus) that raised a process's resident memory by ~130 MB, of which ~80 MB (the
 * 33 MB index included) stayed after a collection.
 */
function stagedVectors(
  reader: TargetReader,
  model: string,
  hashes: readonly number[] | null,
  capacity: number,
): { get(hash: number): Uint8Array | undefined } {
  const slots = new Map<number, number>();
  const apart = new Map<number, Uint8Array>();
  let staged: Uint8Array | null = null;
  let width = 0;
  reader.eachChunkVector(model, hashes, (hash, vector) => {
    if (staged === null) {
      width = vector.byteLength;
      staged = new Uint8Array(width * Math.max(1, capacity));
    }
    // (A content hash comes once per model: `chunk_vectors_key` is unique.)
    if (vector.byteLength === width && slots.size < capacity && !slots.has(hash)) {
      staged.set(vector, slots.size * width);
      slots.set(hash, slots.size);
    } else apart.set(hash, vector);
  });
  return {
    get(hash: number): Uint8Array | undefined {
      const slot = slots.get(hash);
      if (slot === undefined) return apart.get(hash);
      return staged!.subarray(slot * width, (slot + 1) * width);
    },
  };
}

/** The indexes this thread loaded since the last call, to hand to other threads. */
export function takeLoadedIndexes(): SharedVectorIndex[] {
  return loaded.splice(0);
}

/** Makes indexes loaded by other threads usable here (a newer generation replaces an older). */
export function adoptIndexes(indexes: readonly SharedVectorIndex[]): void {
  for (const shared of indexes) {
    const key = `${shared.target}\0${shared.model}`;
    const current = known.get(key);
    if (current && current.generation >= shared.generation) continue;
    known.set(key, attach(shared));
  }
}

function share(index: VectorIndex): SharedVectorIndex {
  const { target, model, generation, dimensions, rows, memory, hashed, build } = index;
  return { target, model, generation, dimensions, rows, memory, hashed, build };
}

/** Byte offsets of an index's parts in its memory. */
function layout(rows: number, dimensions: number) {
  const column = Math.max(LANES, Math.ceil(rows / LANES) * LANES);
  const align = (at: number) => Math.ceil(at / 16) * 16;
  const scales = align(dimensions * column);
  const chunkIds = scales + rows * 4;
  const fileIds = chunkIds + rows * 4;
  const hashes = align(fileIds + rows * 4);
  const locks = hashes + rows * 8;
  const slotBase = align(locks + SLOTS * 4);
  const passes = Math.ceil(Math.max(1, dimensions) / COLUMNS_PER_PASS);
  const slotSums = align(passes * PASS_INTS * 4);
  const slotBytes = slotSums + column * 4;
  const pages = Math.max(1, Math.ceil((slotBase + SLOTS * slotBytes) / PAGE));
  return {
    column,
    scales,
    chunkIds,
    fileIds,
    hashes,
    locks,
    slotBase,
    slotBytes,
    slotSums,
    pages,
  };
}

/** The views and kernel of an index over its memory. */
function attach(shared: SharedVectorIndex): VectorIndex {
  const { rows, dimensions, memory } = shared;
  const at = layout(rows, dimensions);
  const buffer = memory.buffer;
  let score: ScoreFunction | null = null;
  try {
    score = scoreFunction(memory, true, at.pages);
  } catch {
    // Without WebAssembly SIMD the scan runs in JavaScript.
  }
  return {
    ...shared,
    column: at.column,
    values: new Int8Array(buffer, 0, dimensions * at.column),
    scales: new Float32Array(buffer, at.scales, rows),
    chunkIds: new Int32Array(buffer, at.chunkIds, rows),
    fileIds: new Int32Array(buffer, at.fileIds, rows),
    hashes: new Float64Array(buffer, at.hashes, rows),
    locks: new Int32Array(buffer, at.locks, SLOTS),
    slotBase: at.slotBase,
    slotBytes: at.slotBytes,
    slotSums: at.slotSums,
    score,
  };
}

/** Packs up to `total` chunk vectors (of one size) into a shared index. */
export function loadVectorIndex(
  rows: Iterable<VectorRow>,
  total: number,
  options: { model: string; generation?: number; target?: string },
): VectorIndex {
  const { model, generation = 0, target = "" } = options;
  const entries: { chunkId: number; fileId: number; scale: number; values: Int8Array }[] = [];
  let dimensions = 0;
  for (const entry of rows) {
    if (entries.length >= total) break;
    const vector = readQuantized(entry.vector);
    if (dimensions === 0) dimensions = vector.values.length;
    if (vector.values.length !== dimensions || dimensions === 0) continue;
    // The row's bytes are copied now: a stored BLOB's buffer is not kept.
    entries.push({
      chunkId: entry.chunkId,
      fileId: entry.fileId,
      scale: vector.scale,
      values: vector.values.slice(),
    });
  }
  const index = allocate({
    target,
    model,
    generation,
    dimensions,
    rows: entries.length,
    hashed: false,
    build: "",
  });
  entries.forEach((entry, row) => {
    writeRow(index, row, entry);
    index.chunkIds[row] = entry.chunkId;
    index.fileIds[row] = entry.fileId;
  });
  return index;
}

/** A zeroed index of a shape, in new shared memory. */
function allocate(shape: Omit<SharedVectorIndex, "memory">): VectorIndex {
  const { pages } = layout(shape.rows, shape.dimensions);
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  return attach({ ...shape, memory });
}

/** Writes a row's scale and values (by column). */
function writeRow(
  index: VectorIndex,
  row: number,
  vector: { scale: number; values: Int8Array },
): void {
  index.scales[row] = vector.scale;
  for (let d = 0; d < index.dimensions; d++) {
    index.values[d * index.column + row] = vector.values[d];
  }
}

/**
 * The `limit` chunks nearest a unit query vector by cosine, among chunks whose
 * file passes `allowFile` (checked before ranking, so nothing hidden is ranked;
 * asked once per candidate row, so a caller whose check costs keeps its answers);
 * best first, and among equal scores the earlier row first.
 */
export function nearestChunks(
  index: VectorIndex,
  query: Float32Array,
  options: { limit: number; allowFile?: (fileId: number) => boolean },
): VectorHit[] {
  const { dimensions, rows } = index;
  if (dimensions === 0 || query.length !== dimensions || rows === 0 || options.limit <= 0) {
    return [];
  }
  const approximate = approximateScores(index, query);
  const allowFile = options.allowFile;
  const allows = allowFile ? (row: number) => allowFile(index.fileIds[row]) : () => true;
  const wanted = options.limit * RESCORE_FACTOR + RESCORE_EXTRA;
  // The rescored rows in row order, then by exact score (best first): equal scores stay in row
  // order. Negated, ascending; negating a double back is exact.
  const best = Int32Array.from(topRows(approximate, wanted, allows)).sort();
  const nonZero = nonZeroDimensions(query, dimensions);
  const negated = new Float64Array(best.length);
  for (let i = 0; i < best.length; i++) negated[i] = -exactScore(index, best[i], query, nonZero);
  const order = stableOrder(negated);
  const hits: VectorHit[] = [];
  for (let k = 0; k < Math.min(options.limit, order.length); k++) {
    hits.push({ chunkId: index.chunkIds[best[order[k]]], score: -negated[order[k]] });
  }
  return hits;
}

/**
 * Every row's score against the query rounded to int16 (by the kernel when it
 * can): the exact int32 sum of the row's values times the rounded query,
 * added up over the query's non-zero dimensions (a zero adds nothing).
 */
function approximateScores(index: VectorIndex, query: Float32Array): Float64Array {
  const { rows, column, dimensions } = index;
  let max = 0;
  for (let i = 0; i < dimensions; i++) max = Math.max(max, Math.abs(query[i]));
  // The bound as when rows were padded to 16 dimensions (the same rounding, the same sums).
  const padded = Math.max(LANES, Math.ceil(dimensions / LANES) * LANES);
  const limit = Math.min(QUERY_MAX, Math.floor(0x7fffffff / (127 * padded)));
  const quantum = max === 0 ? 0 : limit / max;
  const weights: [number, number][] = [];
  for (let d = 0; d < dimensions; d++) {
    const weight = Math.round(query[d] * quantum);
    if (weight !== 0) weights.push([d, weight]);
  }
  const scores = scratch.scores.kept(rows, () => new Float64Array(rows));
  const slot = claimSlot(index);
  if (slot < 0 || !index.score) {
    const sums = new Int32Array(rows);
    for (const [d, weight] of weights) {
      const offset = d * column;
      for (let row = 0; row < rows; row++) sums[row] += index.values[offset + row] * weight;
    }
    for (let row = 0; row < rows; row++) scores[row] = sums[row] * index.scales[row];
    if (slot >= 0) Atomics.store(index.locks, slot, 0);
    return scores;
  }
  try {
    const base = index.slotBase + slot * index.slotBytes;
    // Four columns a pass: their offsets, then their weights as two pairs (missing ones weigh 0).
    const passes = Math.ceil(weights.length / COLUMNS_PER_PASS);
    const list = new Int32Array(index.memory.buffer, base, passes * PASS_INTS);
    list.fill(0);
    for (let pass = 0; pass < passes; pass++) {
      const at = pass * PASS_INTS;
      const [w0, w1, w2, w3] = [0, 1, 2, 3].map((j) => {
        const entry = weights[pass * COLUMNS_PER_PASS + j];
        if (entry) list[at + j] = entry[0] * column;
        return entry ? entry[1] : 0;
      });
      list[at + 4] = packWeights(w0, w1);
      list[at + 5] = packWeights(w2, w3);
    }
    const out = base + index.slotSums;
    const sums = new Int32Array(index.memory.buffer, out, column);
    sums.fill(0);
    if (passes > 0) index.score(0, column, base, passes, out);
    for (let row = 0; row < rows; row++) scores[row] = sums[row] * index.scales[row];
    return scores;
  } finally {
    Atomics.store(index.locks, slot, 0);
  }
}

/**
 * Per-row arrays of one scan, kept for the next scan of an index that size (a scan is done before
 * the next starts). Every element a scan reads it wrote first.
 */
const scratch = {
  scores: new KeptBySize<Float64Array>(4),
  rows: new KeptBySize<Int32Array>(4),
};

/** A free scratch slot, taken; -1 when every slot is in use. */
function claimSlot(index: VectorIndex): number {
  for (let slot = 0; slot < SLOTS; slot++) {
    if (Atomics.compareExchange(index.locks, slot, 0, 1) === 0) return slot;
  }
  return -1;
}

/** The rows of the `count` highest scores among allowed rows (earlier rows win ties). */
function topRows(scores: Float64Array, count: number, allows: (row: number) => boolean): number[] {
  if (count <= 0) return [];
  if (scores.length > count * 4) {
    const found = rowsReaching(scores, count, allows);
    if (found) return found;
  }
  return heapTopRows(scores, count, allows);
}

/**
 * `topRows` when enough allowed rows reach the `count`-th best score of all
 * rows: every allowed row above it and the earliest allowed rows at it (a
 * row below it has `count` better ones). Null when too few are allowed.
 *
 * The `count`-th best is selected among candidate rows only: those at or
 * above a bound read from every `SAMPLE_STRIDE`-th row, low enough that
 * `count` rows reach it (else every row is a candidate). A row that ties or
 * beats the `count`-th best is then a candidate, so candidates in row order
 * give the same rows as every row would.
 */
function rowsReaching(
  scores: Float64Array,
  count: number,
  allows: (row: number) => boolean,
): number[] | null {
  const candidates = candidateRows(scores, count);
  const values = new Float64Array(candidates.length);
  for (let i = 0; i < candidates.length; i++) values[i] = scores[candidates[i]];
  const threshold = selectValue(values, candidates.length - count);
  const found: number[] = [];
  const tied: number[] = [];
  for (let i = 0; i < candidates.length; i++) {
    const row = candidates[i];
    if (scores[row] > threshold) {
      if (allows(row)) found.push(row);
    } else if (scores[row] === threshold) tied.push(row);
  }
  for (const row of tied) {
    if (found.length >= count) break;
    if (allows(row)) found.push(row);
  }
  return found.length >= count ? found : null;
}

/** Rows read for the sampled bound, and how far below the sample's own share it is taken. */
const SAMPLE_STRIDE = 16;
const SAMPLE_MARGIN = 1.5;
const SAMPLE_EXTRA = 8;

/**
 * Rows in order whose score reaches a bound that at least `count` rows reach
 * (`count` ≤ the number of rows): the bound from a strided sample, or every
 * row when the sample's bound leaves fewer than `count`.
 */
function candidateRows(scores: Float64Array, count: number): Int32Array {
  const rows = scores.length;
  const sampled = Math.ceil(rows / SAMPLE_STRIDE);
  const rank = Math.ceil((count / SAMPLE_STRIDE) * SAMPLE_MARGIN) + SAMPLE_EXTRA;
  if (rank < sampled) {
    const sample = new Float64Array(sampled);
    for (let i = 0; i < sampled; i++) sample[i] = scores[i * SAMPLE_STRIDE];
    const bound = selectValue(sample, sampled - 1 - rank);
    const found = scratch.rows.kept(rows, () => new Int32Array(rows));
    let size = 0;
    for (let row = 0; row < rows; row++) if (scores[row] >= bound) found[size++] = row;
    if (size >= count) return found.subarray(0, size);
  }
  const every = new Int32Array(rows);
  for (let row = 0; row < rows; row++) every[row] = row;
  return every;
}

/** `topRows` by a min-heap over every row. */
function heapTopRows(
  scores: Float64Array,
  count: number,
  allows: (row: number) => boolean,
): number[] {
  const heap = new Int32Array(count);
  let size = 0;
  // The heap's top is its worst row: the lowest score, and the later row among equals.
  const worse = (a: number, b: number) =>
    scores[a] < scores[b] || (scores[a] === scores[b] && a > b);
  const siftDown = () => {
    for (let at = 0;;) {
      const left = at * 2 + 1;
      const right = left + 1;
      let worst = at;
      if (left < size && worse(heap[left], heap[worst])) worst = left;
      if (right < size && worse(heap[right], heap[worst])) worst = right;
      if (worst === at) return;
      const swap = heap[at];
      heap[at] = heap[worst];
      heap[worst] = swap;
      at = worst;
    }
  };
  for (let row = 0; row < scores.length; row++) {
    if (size === count) {
      // Rows come in order: one scoring no more than the top is worse than it (a tie is later).
      if (!(scores[heap[0]] < scores[row]) || !allows(row)) continue;
      heap[0] = row;
      siftDown();
      continue;
    }
    if (!allows(row)) continue;
    let at = size++;
    heap[at] = row;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!worse(heap[at], heap[parent])) break;
      const swap = heap[at];
      heap[at] = heap[parent];
      heap[parent] = swap;
      at = parent;
    }
  }
  return Array.from(heap.subarray(0, size));
}

/** The dimensions where a query is not zero (a hashing query holds a few dozen of 256). */
function nonZeroDimensions(query: Float32Array, dimensions: number): Int32Array {
  const found: number[] = [];
  for (let i = 0; i < dimensions; i++) if (query[i] !== 0) found.push(i);
  return Int32Array.from(found);
}

/**
 * A row's score against the float query, as the stored int8 values and scale
 * give it: four partial sums (fewer dependent additions), dimension `i` added
 * to sum `i % 4` in order, the tail after the last multiple of four to the
 * first. Only the query's non-zero dimensions are visited: a skipped product
 * is ±0, which leaves a sum exactly as it was.
 */
function exactScore(
  index: VectorIndex,
  row: number,
  query: Float32Array,
  nonZero: Int32Array,
): number {
  const { values, column, dimensions } = index;
  const body = dimensions - (dimensions % 4);
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (let k = 0; k < nonZero.length; k++) {
    const i = nonZero[k];
    const product = values[i * column + row] * query[i];
    if (i >= body) s0 += product;
    else if ((i & 3) === 0) s0 += product;
    else if ((i & 3) === 1) s1 += product;
    else if ((i & 3) === 2) s2 += product;
    else s3 += product;
  }
  return (s0 + s1 + s2 + s3) * index.scales[row];
}
