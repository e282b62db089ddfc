/** Orders and selects numbers without a comparator (pure). */

/**
 * The positions of `values` sorted ascending, equal values in position order
 * (what a stable sort of the positions by value gives), without a comparator
 * call: a merge sort of the positions, reading the values directly (runs of
 * `RUN` by insertion first). Equal values (-0 and 0 among them) keep their
 * order, since a position moves ahead of another only for a smaller value.
 * No value may be NaN.
 */
export function stableOrder(values: Float64Array): Int32Array {
  const n = values.length;
  let order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let low = 0; low < n; low += RUN) {
    const high = Math.min(low + RUN, n);
    for (let i = low + 1; i < high; i++) {
      const position = order[i];
      const value = values[position];
      let j = i - 1;
      while (j >= low && values[order[j]] > value) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = position;
    }
  }
  if (n <= RUN) return order;
  let merged = new Int32Array(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let low = 0; low < n; low += 2 * width) {
      const middle = Math.min(low + width, n);
      const high = Math.min(low + 2 * width, n);
      let i = low;
      let j = middle;
      let k = low;
      while (i < middle && j < high) {
        // The right run's position goes first only when its value is smaller.
        merged[k++] = values[order[j]] < values[order[i]] ? order[j++] : order[i++];
      }
      while (i < middle) merged[k++] = order[i++];
      while (j < high) merged[k++] = order[j++];
    }
    const swap = order;
    order = merged;
    merged = swap;
  }
  return order;
}

/** Positions sorted by insertion before the merges. */
const RUN = 16;

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
