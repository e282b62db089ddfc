/**
 * What the resolver reads from one target, kept for the target's generation:
 * rows as records in source order (before any caller's path rule: each request
 * filters them for itself) and values derived from committed texts (lines,
 * bracket depths). It lives on the target's reader (`TargetReader.memo`), so a
 * new generation drops it whole; nothing is ever written back to the target.
 * What relations resolve to is kept apart (`KeptResolutions`), per caller's view
 * of the targets.
 */
import { MemoKey, type TargetReader } from "../store/reader.ts";
import type { Resolution } from "./types.ts";

/**
 * Rows (and lines of text) the resolver keeps at most in one isolate, over every reader's
 * generation cache together: about 150k records of ~200-400 bytes, 30-60 MB at worst per query
 * Worker whatever the number of targets it reads (a budget per reader grew a daemon serving two
 * repositories by ~60 MB, and by ~220 MB during a refresh).
 */
export const GENERATION_CACHE_WEIGHT = 150_000;

/**
 * Resolutions kept at most in one isolate, weighed as one plus their candidates (an ambiguous
 * use of a hub name lists a hundred definitions, each with its reason — written when read for a
 * member whose receiver's type is not evident, `ReceiverCandidate`): ~120k entries of ~100-200
 * bytes, 12-24 MB at worst per query Worker.
 */
export const KEPT_RESOLUTIONS_WEIGHT = 120_000;

/**
 * Entries under one weight in this isolate, used last at the end: the least recently used go
 * first once the weight is over. An entry over a quarter of the weight is not kept.
 */
export class KeptPool {
  readonly #entries = new Map<string, { value: unknown; weight: number }>();
  #weight = 0;

  constructor(readonly capacity: number) {}

  /** The entry kept under `key`, or undefined (a use: it goes to the end). */
  find(key: string): { value: unknown } | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  keep(key: string, value: unknown, weight: number): void {
    if (weight > this.capacity / 4 || this.#entries.has(key)) return;
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
    for (const [oldest, kept] of this.#entries) {
      if (this.#weight <= this.capacity) break;
      this.#entries.delete(oldest);
      this.#weight -= kept.weight;
    }
  }
}

/** Every generation cache's entries in this isolate. */
const ROWS = new KeptPool(GENERATION_CACHE_WEIGHT);
let caches = 0;

/**
 * One reader generation's view of a pool (the isolate's, unless another is given): its keys,
 * kept with every other cache's entries (so a cache whose generation has moved on is dropped as
 * others are used).
 */
export class GenerationCache {
  readonly #prefix = `${caches++}\0`;

  constructor(readonly pool: KeptPool = ROWS) {}

  /** The value kept under `key`, else `make()` kept (weighed by `weigh`). */
  get<T>(key: string, make: () => T, weigh: (value: T) => number): T {
    const full = this.#prefix + key;
    const kept = this.pool.find(full);
    if (kept) return kept.value as T;
    const value = make();
    this.pool.keep(full, value, weigh(value) + 1);
    return value;
  }
}

const GENERATION_CACHE = new MemoKey<GenerationCache>("resolver:generation");

/** The resolver's cache of a reader's current generation. */
export function generationCache(reader: TargetReader): GenerationCache {
  return reader.memo(GENERATION_CACHE, () => new GenerationCache());
}

/** Every kept resolution in this isolate. */
const RESOLUTIONS = new KeptPool(KEPT_RESOLUTIONS_WEIGHT);
const RESOLUTION_GENERATION = new MemoKey<string>("resolver:resolutions");

/**
 * A reader generation's own key among kept resolutions (`KeptResolutions` joins those of every
 * target a request may read).
 */
export function resolutionGeneration(reader: TargetReader): string {
  return reader.memo(RESOLUTION_GENERATION, () => `${caches++}`);
}

/**
 * What relations resolve to, kept across requests for one set of target generations (`scope`
 * names each and everything else an answer depends on). A resolution is a function of its
 * relation, the depth of the member chain it is asked at and what the targets hold, so any
 * request that reads those generations in the same way may take it.
 */
export class KeptResolutions {
  /** The scope's number, in every key (a scope names each repository: keys stay short). */
  readonly #prefix: string;

  constructor(scope: string, readonly pool: KeptPool = RESOLUTIONS) {
    let number = SCOPES.get(scope);
    if (number === undefined) {
      if (SCOPES.size >= SCOPES_KEPT) SCOPES.clear();
      SCOPES.set(scope, number = caches++);
    }
    this.#prefix = `${number}\0`;
  }

  get(key: string): Resolution | undefined {
    return this.pool.find(this.#prefix + key)?.value as Resolution | undefined;
  }

  keep(key: string, resolution: Resolution): void {
    const weight = 1 + (resolution.status === "ambiguous" ? resolution.candidates.length : 0);
    this.pool.keep(this.#prefix + key, resolution, weight);
  }
}

/** Each scope's number (a forgotten scope gets a new one: its kept resolutions are not reached). */
const SCOPES = new Map<string, number>();
const SCOPES_KEPT = 256;
