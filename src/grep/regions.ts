/**
 * Top-level statement ranges of files, so a query parses only the statements
 * that can hold a match: the indexer stores them with each clean tree
 * (`indexer/file_rows.ts`); files it could not (a tree with errors at index
 * time, search-only text) are remembered here once grep has parsed them.
 *
 * Every match lies inside one top-level statement (the file node itself is
 * never a pattern's root kind), and a top-level statement parses alone as it
 * does in its file: the parser starts it in its initial state either way. A
 * file whose tree has errors is not recorded (its recovery depends on context).
 */
import type { Range, Tree } from "web-tree-sitter";
import { topLevelRanges } from "../indexer/file_rows.ts";
import { packRanges, type TextRange, unpackRanges } from "../store/packing.ts";

/** Files remembered at most; the oldest are forgotten first. */
const CAPACITY = 50_000;

const regions = new Map<string, Uint8Array>();

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
  return packed ? parserRanges(unpackRanges(packed)) : undefined;
}

/** Records the top-level ranges of a freshly parsed file (unless its tree has errors). */
export function recordRegions(key: string, tree: Tree, text: string): void {
  if (tree.rootNode.hasError) return;
  if (regions.size >= CAPACITY) regions.delete(regions.keys().next().value!);
  regions.set(key, packRanges(topLevelRanges(tree.rootNode, text)));
}

/** Stored ranges as the parser's `includedRanges`. */
export function parserRanges(ranges: readonly TextRange[]): Range[] {
  return ranges.map((range) => ({
    startIndex: range.startIndex,
    endIndex: range.endIndex,
    startPosition: { row: range.startRow, column: range.startColumn },
    endPosition: { row: range.endRow, column: range.endColumn },
  }));
}
