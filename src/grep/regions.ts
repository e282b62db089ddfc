/**
 * Top-level statement ranges of files grep has parsed, kept per process so a
 * later query parses only the statements that can hold a match.
 *
 * Every match lies inside one top-level statement (the file node itself is
 * never a pattern's root kind), and a top-level statement parses alone as it
 * does in its file: the parser starts it in its initial state either way. A
 * file whose tree has errors is not recorded (its recovery depends on context).
 */
import type { Range, Tree } from "web-tree-sitter";

/** Files remembered at most; the oldest are forgotten first. */
const CAPACITY = 50_000;

/** Per file, six numbers per range: start and end index, start row and column, end row and column. */
const FIELDS = 6;
const regions = new Map<string, Int32Array>();

/** Forgets every recorded range (for measuring cold queries). */
export function forgetRegions(): void {
  regions.clear();
}

/** The key of one file version: target, path and content hash. */
export function regionKey(target: string, path: string, contentHash: string): string {
  return `${target}\0${path}\0${contentHash}`;
}

/** The recorded top-level ranges of a file version, or undefined. */
export function knownRegions(key: string): Range[] | undefined {
  const packed = regions.get(key);
  if (!packed) return undefined;
  const ranges: Range[] = [];
  for (let i = 0; i < packed.length; i += FIELDS) {
    ranges.push({
      startIndex: packed[i],
      endIndex: packed[i + 1],
      startPosition: { row: packed[i + 2], column: packed[i + 3] },
      endPosition: { row: packed[i + 4], column: packed[i + 5] },
    });
  }
  return ranges;
}

/**
 * Records the top-level ranges of a freshly parsed file. Each range runs to the
 * end of its last line (a parser must see the line break that ends it), and
 * ranges sharing a line are merged.
 */
export function recordRegions(key: string, tree: Tree, text: string): void {
  const root = tree.rootNode;
  if (root.hasError) return;
  const ranges: Range[] = [];
  for (const child of root.children) {
    if (!child) continue;
    const lineEnd = text.indexOf("\n", child.endIndex);
    const range: Range = lineEnd < 0
      ? {
        startIndex: child.startIndex,
        endIndex: child.endIndex,
        startPosition: child.startPosition,
        endPosition: child.endPosition,
      }
      : {
        startIndex: child.startIndex,
        endIndex: lineEnd + 1,
        startPosition: child.startPosition,
        endPosition: { row: child.endPosition.row + 1, column: 0 },
      };
    const last = ranges[ranges.length - 1];
    if (last && range.startIndex < last.endIndex) {
      if (range.endIndex > last.endIndex) {
        last.endIndex = range.endIndex;
        last.endPosition = range.endPosition;
      }
    } else {
      ranges.push(range);
    }
  }
  const packed = new Int32Array(ranges.length * FIELDS);
  ranges.forEach((range, i) => {
    packed.set([
      range.startIndex,
      range.endIndex,
      range.startPosition.row,
      range.startPosition.column,
      range.endPosition.row,
      range.endPosition.column,
    ], i * FIELDS);
  });
  if (regions.size >= CAPACITY) regions.delete(regions.keys().next().value!);
  regions.set(key, packed);
}
