/** Orders and selects numbers without a comparator (pure). */

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

/** The `k`-th smallest (from 0) of `values`, which are reordered (Hoare's selection). */
export function selectValue(values: Float64Array, k: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const a = values[low], b = values[(low + high) >> 1], c = values[high];
    // The median of three as the pivot: a value in the range, so both scans stop.
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        const swap = values[i];
        values[i++] = values[j];
        values[j--] = swap;
      }
    }
    // Now low..j ≤ pivot, i..high ≥ pivot, and j+1..i-1 equal it.
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else return values[k];
  }
  return values[low];
}
