/**
 * Arrays kept between uses in one thread, by size, so that a hot path allocates none per call
 * (typed arrays live outside V8's heap, which frees them only at its next collection). A search
 * of a workspace of several repositories uses one size per repository: at most `sizes` sizes are
 * kept, and the size kept longest goes first.
 */
export class KeptBySize<T> {
  readonly #kept = new Map<number, T>();

  constructor(readonly sizes: number) {}

  /** The value kept for `size`, no longer kept (give it back when done), or undefined. */
  take(size: number): T | undefined {
    const value = this.#kept.get(size);
    this.#kept.delete(size);
    return value;
  }

  /** Keeps `value` for `size`. */
  give(size: number, value: T): void {
    this.#kept.delete(size);
    if (this.#kept.size >= this.sizes) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(size, value);
  }

  /** The value kept for `size`, made and kept when there is none; it stays kept while used. */
  kept(size: number, make: () => T): T {
    let value = this.#kept.get(size);
    if (value === undefined) this.give(size, value = make());
    return value;
  }
}
