/**
 * Statement units of files the index has none for (a tree with errors at index
 * time, search-only text), remembered once grep has parsed such a file whole
 * with a clean tree, so the next query parses only the units it needs
 * (`grep/plan.ts`). The indexer stores the units of every clean tree
 * (`indexer/file_rows.ts`). A file whose tree has errors is not recorded (its
 * recovery depends on context).
 */
import type { Tree } from "web-tree-sitter";
import { statementUnits } from "../indexer/statement_units.ts";
import { packUnits, type UnitTable, unpackUnitTable } from "../store/packing.ts";

/** Files remembered at most; the oldest are forgotten first. */
const CAPACITY = 50_000;

const regions = new Map<string, Uint8Array>();

/** Forgets every recorded unit (for measuring cold queries). */
export function forgetRegions(): void {
  regions.clear();
}

/** The key of one file version: target, path and content hash. */
export function regionKey(target: string, path: string, contentHash: string): string {
  return `${target}\0${path}\0${contentHash}`;
}

/** The recorded statement units of a file version, or undefined. */
export function knownRegions(key: string): UnitTable | undefined {
  const packed = regions.get(key);
  return packed ? unpackUnitTable(packed) : undefined;
}

/** Records the statement units of a freshly parsed file (unless its tree has errors). */
export function recordRegions(key: string, tree: Tree, text: string): void {
  if (tree.rootNode.hasError) return;
  if (regions.size >= CAPACITY) regions.delete(regions.keys().next().value!);
  regions.set(key, packUnits(statementUnits(tree.rootNode, text)));
}
