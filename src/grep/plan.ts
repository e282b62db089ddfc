/**
 * What grep parses of a file that holds a pattern's literals: the ranges the
 * parser reads (`includedRanges`), chosen from the file's statement units
 * (`indexer/statement_units.ts`) so that every node that can match is parsed
 * exactly as in the whole file, and little else is.
 *
 * Top-level plan: the top-level statements holding the literals in order.
 * A statement parses alone as in its file: the parser starts it in its
 * initial state either way.
 *
 * Nested plan (units inside blocks): a match of a pattern without a block (an
 * expression, a simple statement) lies in one statement, so in the own text
 * of the innermost unit holding it: the unit's lines outside its child units,
 * in one piece between two of them. Each such piece holding the literals in
 * order is parsed with the own text of the units around it (their header and
 * clause lines: `class A:`, `def f(self):`, `else:`) and none of their other
 * statements; a block left with no statement gets one: the first character
 * of one of its statements (an identifier or a number) and a line break,
 * text of the file at its own place. Comment lines right after a statement
 * are left out (`#pastComments`). A statement's subtree is the same
 * whatever statements stand beside it in its block, so every node inside the
 * parsed pieces is the node of the whole file. A match that holds statements
 * (a definition, an `if`) is a unit of the pattern's kind, or lies in a
 * unit's own text: units of that kind holding the literals are parsed whole.
 * A pattern whose root is a block or a clause (whose node a plan would cut)
 * gets the top-level plan.
 */
import type { Language, Range as ParserRange } from "web-tree-sitter";
import type { StatementUnit, TextRange } from "../store/packing.ts";
import type { CompiledPattern } from "./pattern.ts";
import { containsAll, containsInOrder } from "./prefilter.ts";

export interface ParsePlan {
  ranges: ParserRange[];
  /** Ranges from a lexer, not a tree: a parse with errors means they were wrong. */
  guessed: boolean;
  /** A nested plan: a parse with errors (never expected) falls back to the top-level plan. */
  nested: boolean;
  /** Where the statements added to empty blocks start: no node starting there is the file's. */
  fillers: Set<number>;
}

/** Node kinds between a unit and the unit holding it, which a nested plan parses cut short. */
const CUT_KINDS = new Set([
  "module",
  "block",
  "elif_clause",
  "else_clause",
  "except_clause",
  "except_group_clause",
  "finally_clause",
]);
/** Definitions whose unit is their `decorated_definition` when they have decorators. */
const DECORATED = new Set(["function_definition", "class_definition"]);
const FILLER_START = /[A-Za-z0-9_]/;

/** The top-level statements holding the literals in order. */
export function topLevelPlan(
  compiled: CompiledPattern,
  text: string,
  ranges: readonly ParserRange[],
  guessed: boolean,
): ParsePlan {
  const { literals, tokens } = compiled;
  const holding = ranges.filter((range) => {
    const part = text.slice(range.startIndex, range.endIndex);
    return containsAll(part, literals) && containsInOrder(part, tokens);
  });
  return { ranges: holding, guessed, nested: false, fillers: new Set() };
}

/** The top-level units as parser ranges. */
export function topLevelRanges(units: readonly StatementUnit[]): ParserRange[] {
  return units.filter((unit) => unit.parent < 0).map(parserRange);
}

/** A stored range as the parser's range. */
export function parserRange(range: TextRange): ParserRange {
  return {
    startIndex: range.startIndex,
    endIndex: range.endIndex,
    startPosition: { row: range.startRow, column: range.startColumn },
    endPosition: { row: range.endRow, column: range.endColumn },
  };
}

/**
 * The plan for a file with statement units: nested when the units go below
 * the top level and the pattern allows it, else top-level.
 */
export function unitPlan(
  compiled: CompiledPattern,
  text: string,
  units: readonly StatementUnit[],
  language: Language,
): ParsePlan {
  const nestedUnits = units.some((unit) => unit.parent >= 0);
  const cut = compiled.rootKind === null || CUT_KINDS.has(compiled.rootKind);
  if (!nestedUnits || cut || compiled.literals.length === 0) {
    return topLevelPlan(compiled, text, topLevelRanges(units), false);
  }
  return new NestedPlanner(compiled, text, units, language).plan();
}

const NONE = 0;
const OWN = 1;
const WHOLE = 2;

class NestedPlanner {
  readonly #compiled: CompiledPattern;
  readonly #text: string;
  readonly #units: readonly StatementUnit[];
  readonly #children: number[][];
  readonly #marks: Uint8Array;
  /** Unit kinds a match may be: the pattern's root kind (a decorated definition's unit too). */
  readonly #unitKinds = new Set<number>();
  readonly #ranges: ParserRange[] = [];
  readonly #fillers = new Set<number>();

  constructor(
    compiled: CompiledPattern,
    text: string,
    units: readonly StatementUnit[],
    language: Language,
  ) {
    this.#compiled = compiled;
    this.#text = text;
    this.#units = units;
    this.#children = units.map(() => []);
    units.forEach((unit, i) => {
      if (unit.parent >= 0) this.#children[unit.parent].push(i);
    });
    this.#marks = new Uint8Array(units.length);
    const kind = compiled.rootKind!;
    const id = language.idForNodeType(kind, true);
    if (id !== null) this.#unitKinds.add(id);
    if (DECORATED.has(kind)) {
      const decorated = language.idForNodeType("decorated_definition", true);
      if (decorated !== null) this.#unitKinds.add(decorated);
    }
  }

  plan(): ParsePlan {
    const literal = this.#compiled.literals[0];
    const text = this.#text;
    const checked = new Map<number, boolean>();
    const wholeChecked = new Set<number>();
    for (let at = text.indexOf(literal); at >= 0; at = text.indexOf(literal, at + 1)) {
      const inner = this.#innermost(at);
      if (inner < 0) continue;
      const [from, to] = this.#ownPiece(inner, at);
      let holds = checked.get(from);
      if (holds === undefined) {
        holds = this.#holds(from, to);
        checked.set(from, holds);
      }
      if (holds) this.#mark(inner, OWN);
      if (this.#unitKinds.size === 0) continue;
      for (let unit = inner; unit >= 0; unit = this.#units[unit].parent) {
        if (wholeChecked.has(unit)) continue;
        wholeChecked.add(unit);
        const { kind, startIndex, endIndex } = this.#units[unit];
        if (this.#unitKinds.has(kind) && this.#holds(startIndex, endIndex)) {
          this.#mark(unit, WHOLE);
        }
      }
    }
    this.#units.forEach((unit, i) => {
      if (unit.parent < 0 && this.#marks[i] !== NONE) this.#emit(i);
    });
    return { ranges: this.#ranges, guessed: false, nested: true, fillers: this.#fillers };
  }

  #holds(from: number, to: number): boolean {
    const part = this.#text.slice(from, to);
    return containsAll(part, this.#compiled.literals) &&
      containsInOrder(part, this.#compiled.tokens);
  }

  /** Marks a unit (a stronger mark wins) and its ancestors' own text. */
  #mark(unit: number, mark: number): void {
    if (this.#marks[unit] < mark) this.#marks[unit] = mark;
    for (let up = this.#units[unit].parent; up >= 0; up = this.#units[up].parent) {
      if (this.#marks[up] !== NONE) break;
      this.#marks[up] = OWN;
    }
  }

  /** The innermost unit whose range holds `at`, or -1 (between top-level statements). */
  #innermost(at: number): number {
    const units = this.#units;
    let low = 0;
    let high = units.length - 1;
    let last = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (units[middle].startIndex <= at) {
        last = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    for (let unit = last; unit >= 0; unit = units[unit].parent) {
      if (units[unit].endIndex > at) return unit;
    }
    return -1;
  }

  /** The piece of a unit's own text (between two of its child units) that holds `at`. */
  #ownPiece(unit: number, at: number): [number, number] {
    let from = this.#units[unit].startIndex;
    let to = this.#units[unit].endIndex;
    for (const child of this.#children[unit]) {
      const { startIndex, endIndex } = this.#units[child];
      if (endIndex <= at) from = endIndex;
      else if (startIndex > at) {
        to = startIndex;
        break;
      }
    }
    return [from, to];
  }

  /** Adds the ranges of a marked unit: all of it, or its own text and its marked children. */
  #emit(unit: number): void {
    const units = this.#units;
    const self = units[unit];
    const children = this.#children[unit];
    if (this.#marks[unit] === WHOLE || children.length === 0) {
      this.#push(start(self), end(self));
      return;
    }
    let from = start(self);
    for (let k = 0; k < children.length;) {
      const block = units[children[k]].block;
      let e = k;
      while (e < children.length && units[children[e]].block === block) e++;
      const group = children.slice(k, e);
      this.#push(from, start(units[group[0]]));
      const kept = group.filter((child) => this.#marks[child] !== NONE);
      if (kept.length > 0) { for (const child of kept) this.#emit(child); }
      else this.#filler(group);
      from = this.#pastComments(end(units[group[group.length - 1]]), self.endIndex);
      k = e;
    }
    this.#push(from, end(self));
  }

  /**
   * Past the blank and comment-only lines that follow a statement. In the file
   * they followed its last sibling; after another statement, one with a block
   * as deep as their column, they would end up inside that block.
   */
  #pastComments(from: Point, limit: number): Point {
    const text = this.#text;
    let at = from.index;
    let row = from.row;
    while (at < limit) {
      let first = at;
      while (first < limit && /[ \t\f\r]/.test(text[first])) first++;
      if (first < limit && text[first] !== "#" && text[first] !== "\n") break;
      const lineEnd = text.indexOf("\n", first);
      if (lineEnd < 0 || lineEnd + 1 > limit) break;
      at = lineEnd + 1;
      row++;
    }
    return at === from.index ? from : { index: at, row, column: 0 };
  }

  /** One statement for a block none of whose statements is parsed. */
  #filler(group: number[]): void {
    const text = this.#text;
    for (const child of group) {
      const unit = this.#units[child];
      let first = unit.startIndex;
      while (first < unit.endIndex && /[ \t\f]/.test(text[first])) first++;
      if (!FILLER_START.test(text[first] ?? "")) continue;
      const lineEnd = text.indexOf("\n", first);
      if (lineEnd < 0 || lineEnd >= unit.endIndex) continue;
      const column = (index: number) => index - unit.startIndex;
      this.#push(start(unit), { index: first + 1, row: unit.startRow, column: column(first + 1) });
      this.#push(
        { index: lineEnd, row: unit.startRow, column: column(lineEnd) },
        { index: lineEnd + 1, row: unit.startRow + 1, column: 0 },
      );
      this.#fillers.add(first);
      return;
    }
    // No statement starts with a word character (a docstring alone): the shortest, whole.
    let shortest = group[0];
    for (const child of group) {
      const size = (unit: StatementUnit) => unit.endIndex - unit.startIndex;
      if (size(this.#units[child]) < size(this.#units[shortest])) shortest = child;
    }
    this.#push(start(this.#units[shortest]), end(this.#units[shortest]));
  }

  #push(from: Point, to: Point): void {
    if (to.index <= from.index) return;
    const last = this.#ranges[this.#ranges.length - 1];
    if (last && last.endIndex === from.index) {
      last.endIndex = to.index;
      last.endPosition = { row: to.row, column: to.column };
      return;
    }
    this.#ranges.push({
      startIndex: from.index,
      endIndex: to.index,
      startPosition: { row: from.row, column: from.column },
      endPosition: { row: to.row, column: to.column },
    });
  }
}

interface Point {
  index: number;
  row: number;
  column: number;
}

function start(unit: StatementUnit): Point {
  return { index: unit.startIndex, row: unit.startRow, column: unit.startColumn };
}

function end(unit: StatementUnit): Point {
  return { index: unit.endIndex, row: unit.endRow, column: unit.endColumn };
}

/** Characters handed to the parser per read at most (its input buffer holds 10 KiB). */
const READ_CHARS = 4096;

/**
 * The parser's input for a parse of some ranges of a text: each read ends at
 * the end of the range it starts in. Given the whole string, the parser copies
 * up to its buffer's size at every read, and it reads again at the start of
 * every range: many short ranges would copy far more than they hold.
 */
export function rangedInput(
  text: string,
  ranges: readonly ParserRange[],
): (index: number) => string | undefined {
  let at = 0;
  return (index: number) => {
    if (index >= text.length) return undefined;
    // Reads move forward through the ranges; a read elsewhere finds its range again.
    if (at >= ranges.length || ranges[at].startIndex > index || ranges[at].endIndex <= index) {
      at = rangeAt(ranges, index);
    }
    const end = at < ranges.length && ranges[at].startIndex <= index
      ? Math.min(ranges[at].endIndex, index + READ_CHARS)
      : index + READ_CHARS;
    return text.slice(index, Math.max(end, index + 1));
  };
}

/** The first range ending after `index` (ranges.length when none does). */
function rangeAt(ranges: readonly ParserRange[], index: number): number {
  let low = 0;
  let high = ranges.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (ranges[middle].endIndex <= index) low = middle + 1;
    else high = middle;
  }
  return low;
}
