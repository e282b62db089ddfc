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
 * Rows (and lines of text) a reader keeps for the resolver at most: about 150k records of
 * ~200 bytes, ~30 MB per reader at worst (each query Worker has its own readers).
 */
export const GENERATION_CACHE_WEIGHT = 150_000;

/** A map that keeps the entries used last up to a total weight (an entry over a quarter of it is not kept). */
export class GenerationCache {
  readonly #entries = new Map<string, { value: unknown; weight: number }>();
  #weight = 0;

  constructor(readonly capacity: number) {}

  /** The value kept under `key`, else `make()` kept (weighed by `weigh`). */
  get<T>(key: string, make: () => T, weigh: (value: T) => number): T {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      return entry.value as T;
    }
    const value = make();
    const weight = weigh(value) + 1;
    if (weight > this.capacity / 4) return value;
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
    for (const [oldest, kept] of this.#entries) {
      if (this.#weight <= this.capacity) break;
      this.#entries.delete(oldest);
      this.#weight -= kept.weight;
    }
    return value;
  }

  get size(): number {
    return this.#entries.size;
  }
}

const GENERATION_CACHE = new MemoKey<GenerationCache>("resolver:generation");

/** The resolver's cache of a reader's current generation. */
export function generationCache(reader: TargetReader): GenerationCache {
  return reader.memo(GENERATION_CACHE, () => new GenerationCache(GENERATION_CACHE_WEIGHT));
}
