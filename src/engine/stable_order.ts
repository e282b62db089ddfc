/** Orders numbers without a comparator (pure). */

/**
 * The positions of `values` sorted ascending, equal values in position order
 * (what a stable sort of the positions by value gives), without a comparator:
 * the values are sorted natively, and each position, taken in order, goes to
 * the next free slot of its value's run. No value may be NaN.
 */
export function stableOrder(values: Float64Array): Int32Array {
  const sorted = values.slice().sort();
  const filled = new Int32Array(values.length);
  const order = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    // The first slot of the value's run.
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (sorted[middle] < value) low = middle + 1;
      else high = middle;
    }
    order[low + filled[low]++] = i;
  }
  return order;
}
