/**
 * What the resolver reads from one target, kept for the target's generation:
 * rows as records in source order (before any caller's path rule: each request
 * filters them for itself) and values derived from committed texts (lines,
 * bracket depths). It lives on the target's reader (`TargetReader.memo`), so a
 * new generation drops it whole; nothing resolved is kept here, and nothing is
 * ever written back to the target.
 */
import { MemoKey, type TargetReader } from "../store/reader.ts";

/**
 * Rows (and lines of text) the resolver keeps at most in one isolate, over every reader's
 * generation cache together: about 150k records of ~200-400 bytes, 30-60 MB at worst per query
 * Worker whatever the number of targets it reads (a budget per reader grew a daemon serving two
 * repositories by ~60 MB, and by ~220 MB during a refresh).
 */
export const GENERATION_CACHE_WEIGHT = 150_000;

/** Every generation cache's entries in this isolate, used last at the end, under one weight. */
const KEPT = new Map<string, { value: unknown; weight: number }>();
let keptWeight = 0;
let caches = 0;

/**
 * One reader generation's view of the isolate's cache: its keys, kept with every other
 * cache's entries under `GENERATION_CACHE_WEIGHT` (the least recently used go first, so a cache
 * whose generation has moved on is dropped as others are used). An entry over a quarter of the
 * weight is not kept.
 */
export class GenerationCache {
  readonly #prefix = `${caches++}\0`;

  constructor(readonly capacity: number = GENERATION_CACHE_WEIGHT) {}

  /** The value kept under `key`, else `make()` kept (weighed by `weigh`). */
  get<T>(key: string, make: () => T, weigh: (value: T) => number): T {
    const full = this.#prefix + key;
    const entry = KEPT.get(full);
    if (entry) {
      KEPT.delete(full);
      KEPT.set(full, entry);
      return entry.value as T;
    }
    const value = make();
    const weight = weigh(value) + 1;
    if (weight > this.capacity / 4) return value;
    KEPT.set(full, { value, weight });
    keptWeight += weight;
    for (const [oldest, kept] of KEPT) {
      if (keptWeight <= this.capacity) break;
      KEPT.delete(oldest);
      keptWeight -= kept.weight;
    }
    return value;
  }
}

const GENERATION_CACHE = new MemoKey<GenerationCache>("resolver:generation");

/** The resolver's cache of a reader's current generation. */
export function generationCache(reader: TargetReader): GenerationCache {
  return reader.memo(GENERATION_CACHE, () => new GenerationCache(GENERATION_CACHE_WEIGHT));
}
