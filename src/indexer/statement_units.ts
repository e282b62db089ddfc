/**
 * The statements grep may parse on their own, found in a clean tree: every
 * top-level statement, and, in Python, the statements of the blocks of a large
 * compound statement (a class's methods, a function's statements, an `if`'s
 * branches), recursively. grep then parses only the statements that hold a
 * pattern's literals, under the header lines of the statements around them
 * (`grep/plan.ts`), instead of whole top-level classes.
 *
 * A top-level statement runs from its start to the end of its last line;
 * statements sharing a line are merged into one unit (kind 0, not split). A
 * nested unit is one statement of a block, from its line start to the end of
 * its last line; a block is split only when each of its statements has its
 * lines to itself (no `x = 1; y = 2`, no body on the header's line) and all
 * of them are statements (a `match` block holds `case` clauses).
 */
import type { Node } from "web-tree-sitter";
import type { StatementUnit } from "../store/packing.ts";

/** A unit shorter than this is parsed whole: splitting it saves less than it costs to store. */
export const SPLIT_MIN_CHARS = 128;

/** Python: where the statements of a compound statement are (in `block`s, directly or in a clause). */
const PYTHON_ROOT = "module";
const PYTHON_BLOCK = "block";
/** Children of a compound statement that hold a block of it. */
const PYTHON_BLOCK_HOLDERS = new Set([
  "function_definition",
  "class_definition",
  "elif_clause",
  "else_clause",
  "except_clause",
  "except_group_clause",
  "finally_clause",
]);

/** The statement units of a clean tree, in pre-order. */
export function statementUnits(
  root: Node,
  text: string,
  splitMinChars = SPLIT_MIN_CHARS,
): StatementUnit[] {
  const top: { unit: StatementUnit; node: Node | null }[] = [];
  for (const child of root.children) {
    if (!child) continue;
    const unit: StatementUnit = {
      startIndex: child.startIndex,
      startRow: child.startPosition.row,
      startColumn: child.startPosition.column,
      ...endOf(child, child.endIndex, text),
      parent: -1,
      block: 0,
      kind: child.typeId,
    };
    const last = top[top.length - 1];
    if (last && unit.startIndex < last.unit.endIndex) {
      // Statements sharing a line: one unit, not split.
      if (unit.endIndex > last.unit.endIndex) {
        last.unit.endIndex = unit.endIndex;
        last.unit.endRow = unit.endRow;
        last.unit.endColumn = unit.endColumn;
      }
      last.unit.kind = 0;
      last.node = null;
    } else {
      top.push({ unit, node: child });
    }
  }
  const units: StatementUnit[] = [];
  const nesting = root.type === PYTHON_ROOT;
  for (const { unit, node } of top) {
    units.push(unit);
    if (nesting && node) splitUnit(node, units.length - 1, units, { text, splitMinChars });
  }
  return units;
}

/** Adds the units of a large unit's blocks after it (its node is `node`), recursively. */
function splitUnit(
  node: Node,
  index: number,
  units: StatementUnit[],
  options: { text: string; splitMinChars: number },
): void {
  const { text, splitMinChars } = options;
  const unit = units[index];
  if (unit.endIndex - unit.startIndex < splitMinChars) return;
  const blocks: Node[] = [];
  // Each getter of a node is a call into the parser's memory: a type is read once.
  for (const child of node.children) {
    if (!child) continue;
    const type = child.type;
    if (type === PYTHON_BLOCK) blocks.push(child);
    else if (PYTHON_BLOCK_HOLDERS.has(type)) {
      for (const inner of child.children) if (inner?.type === PYTHON_BLOCK) blocks.push(inner);
    }
  }
  let block = 0;
  for (const holder of blocks) {
    const statements = separable(holder, text);
    if (!statements) continue;
    for (const { node: statement, unit: child } of statements) {
      child.parent = index;
      child.block = block;
      units.push(child);
      splitUnit(statement, units.length - 1, units, options);
    }
    block++;
  }
}

/**
 * The statements of a block as units, when each has its own lines and all are
 * statements; else null (the block stays part of its parent's own text).
 */
function separable(
  block: Node,
  text: string,
): { node: Node; unit: StatementUnit }[] | null {
  const out: { node: Node; unit: StatementUnit }[] = [];
  let previousEnd = -1;
  for (const child of block.namedChildren) {
    if (!child) continue;
    const type = child.type;
    if (type === "comment") continue;
    if (type.endsWith("_clause")) return null;
    const lineStart = text.lastIndexOf("\n", child.startIndex - 1) + 1;
    if (lineStart < previousEnd || !isBlank(text, lineStart, child.startIndex)) return null;
    const unit: StatementUnit = {
      startIndex: lineStart,
      startRow: child.startPosition.row,
      startColumn: 0,
      ...endOf(child, child.endIndex, text),
      parent: -1,
      block: 0,
      kind: child.typeId,
    };
    previousEnd = unit.endIndex;
    out.push({ node: child, unit });
  }
  return out.length > 0 ? out : null;
}

/** The newline that ends the line a node ends on, or -1 at the end of the text. */
function lineEndAfter(text: string, endIndex: number): number {
  if (endIndex > 0 && text[endIndex - 1] === "\n") return endIndex - 1;
  return text.indexOf("\n", endIndex);
}

/**
 * Where a unit ends: after the newline ending its last line, else where the node ends
 * (`endIndex`, read once by the caller: each read is a call into the parser's memory).
 */
function endOf(node: Node, endIndex: number, text: string) {
  const lineEnd = lineEndAfter(text, endIndex);
  const end = node.endPosition;
  return lineEnd < 0 ? { endIndex, endRow: end.row, endColumn: end.column } : {
    endIndex: lineEnd + 1,
    endRow: end.row + (endIndex - 1 === lineEnd ? 0 : 1),
    endColumn: 0,
  };
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text[i];
    if (c !== " " && c !== "\t" && c !== "\f") return false;
  }
  return true;
}
