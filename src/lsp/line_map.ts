/**
 * Carries line numbers from the text a server read (the working tree) onto the committed text:
 * a line-level diff (common prefix and suffix, then Myers' O(ND) alignment of the middle, bounded)
 * pairs each unchanged line with its committed line. Pure: strings in, numbers out.
 */

/** Edits beyond which the middle of two texts is left unaligned (its lines map to nothing). */
const MAX_EDITS = 1_000;

/**
 * For each line of `from` (1-based index), the 1-based line of `to` holding the same text in an
 * alignment of the two, or 0 when the line was added or changed. Index 0 is unused.
 */
export function lineMapping(from: string, to: string): Int32Array {
  const a = from.split("\n");
  const b = to.split("\n");
  const map = new Int32Array(a.length + 1);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) {
    map[prefix + 1] = prefix + 1;
    prefix++;
  }
  let suffix = 0;
  while (
    suffix < a.length - prefix && suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    map[a.length - suffix] = b.length - suffix;
    suffix++;
  }
  const middleA = a.slice(prefix, a.length - suffix);
  const middleB = b.slice(prefix, b.length - suffix);
  for (const [i, j] of alignLines(middleA, middleB)) map[prefix + i + 1] = prefix + j + 1;
  return map;
}

/** Pairs (index in a, index in b) of equal lines in a shortest edit script, or none past the bound. */
function alignLines(a: string[], b: string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return [];
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])
        ? v[offset + k + 1]
        : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  if (!found) return [];
  const pairs: [number, number][] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const snapshot = trace[d];
    const k = x - y;
    const previousK = k === -d || (k !== d && snapshot[offset + k - 1] < snapshot[offset + k + 1])
      ? k + 1
      : k - 1;
    const previousX = snapshot[offset + previousK];
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      x--;
      y--;
      pairs.push([x, y]);
    }
    if (d > 0) {
      x = previousX;
      y = previousY;
    }
  }
  return pairs;
}
