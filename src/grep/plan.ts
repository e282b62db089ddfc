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
import type { UnitTable } from "../store/packing.ts";
import type { CompiledPattern } from "./pattern.ts";
import { LexicalCheck } from "./lexical.ts";
import { containsAll, containsInOrder } from "./prefilter.ts";

export interface ParsePlan {
  ranges: ParserRange[];
  /** Ranges from a lexer, not a tree: a parse with errors means they were wrong. */
  guessed: boolean;
  /** A nested plan: a parse with errors (never expected) falls back to the top-level plan. */
  nested: boolean;
  /** Where the statements added to empty blocks start: no node starting there is the file's. */
  fillers: Set<number>;
  /**
   * Every match starts at an occurrence of the first literal inside the ranges
   * (the pattern holds no block, so no node of its kind spans text left out):
   * the matcher need not look at occurrences elsewhere.
   */
  anchorsInRanges: boolean;
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

/**
 * The top-level statements holding the literals in order, and, when they are
 * a tree's (not `guessed`) and `language` is given, whose tokens allow a match
 * (a match without a block lies in one statement).
 */
export function topLevelPlan(
  compiled: CompiledPattern,
  text: string,
  ranges: readonly ParserRange[],
  guessed: boolean,
  language?: Language,
): ParsePlan {
  const { literals, tokens } = compiled;
  const lexical = guessed || !language ? null : lexicalCheck(compiled, language);
  const holding = ranges.filter((range) => {
    const part = text.slice(range.startIndex, range.endIndex);
    return containsAll(part, literals) && containsInOrder(part, tokens) &&
      (lexical?.mayMatch(text, range.startIndex, range.endIndex) ?? true);
  });
  return {
    ranges: holding,
    guessed,
    nested: false,
    fillers: new Set(),
    anchorsInRanges: lexical !== null,
  };
}

/** The top-level units as parser ranges. */
export function topLevelRanges(units: UnitTable): ParserRange[] {
  const ranges: ParserRange[] = [];
  for (let i = 0; i < units.count; i++) {
    if (units.parent[i] < 0) {
      ranges.push({
        startIndex: units.startIndex[i],
        endIndex: units.endIndex[i],
        startPosition: { row: units.startRow[i], column: units.startColumn[i] },
        endPosition: { row: units.endRow[i], column: units.endColumn[i] },
      });
    }
  }
  return ranges;
}

/**
 * The plan for a file with statement units: nested when the units go below
 * the top level and the pattern allows it, else top-level.
 */
export function unitPlan(
  compiled: CompiledPattern,
  text: string,
  units: UnitTable,
  language: Language,
): ParsePlan {
  const nestedUnits = units.parent.some((parent) => parent >= 0);
  const cut = compiled.rootKind === null || CUT_KINDS.has(compiled.rootKind);
  if (!nestedUnits || cut || compiled.literals.length === 0) {
    return topLevelPlan(compiled, text, topLevelRanges(units), false, language);
  }
  return new NestedPlanner(compiled, text, units, language).plan();
}

const LEXICAL_CHECKS = new WeakMap<CompiledPattern, LexicalCheck | null>();

/** The token check of a pattern (`lexical.ts`), made once per compiled pattern. */
function lexicalCheck(compiled: CompiledPattern, language: Language): LexicalCheck | null {
  let check = LEXICAL_CHECKS.get(compiled);
  if (check === undefined) {
    check = LexicalCheck.of(compiled, language);
    LEXICAL_CHECKS.set(compiled, check);
  }
  return check;
}

const NONE = 0;
const OWN = 1;
const WHOLE = 2;

class NestedPlanner {
  readonly #compiled: CompiledPattern;
  readonly #text: string;
  readonly #units: UnitTable;
  /** Each unit's first child and next sibling (-1: none), units being in pre-order. */
  readonly #firstChild: Int32Array;
  readonly #nextSibling: Int32Array;
  readonly #marks: Uint8Array;
  /** Unit kinds a match may be: the pattern's root kind (a decorated definition's unit too). */
  readonly #unitKinds = new Set<number>();
  readonly #ranges: ParserRange[] = [];
  readonly #fillers = new Set<number>();
  readonly #lexical: LexicalCheck | null;

  constructor(
    compiled: CompiledPattern,
    text: string,
    units: UnitTable,
    language: Language,
  ) {
    this.#compiled = compiled;
    this.#text = text;
    this.#units = units;
    const count = units.count;
    this.#firstChild = new Int32Array(count).fill(-1);
    this.#nextSibling = new Int32Array(count).fill(-1);
    const lastChild = new Int32Array(count).fill(-1);
    for (let i = 0; i < count; i++) {
      const parent = units.parent[i];
      if (parent < 0) continue;
      if (lastChild[parent] < 0) this.#firstChild[parent] = i;
      else this.#nextSibling[lastChild[parent]] = i;
      lastChild[parent] = i;
    }
    this.#marks = new Uint8Array(count);
    this.#lexical = lexicalCheck(compiled, language);
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
    const units = this.#units;
    const checked = new Map<number, boolean>();
    const wholeChecked = new Set<number>();
    for (let at = text.indexOf(literal); at >= 0; at = text.indexOf(literal, at + 1)) {
      const inner = this.#innermost(at);
      if (inner < 0) continue;
      const [from, to] = this.#ownPiece(inner, at);
      let holds = checked.get(from);
      if (holds === undefined) {
        // A match without a block lies in one piece: its tokens must allow one there.
        holds = this.#holds(from, to) && (this.#lexical?.mayMatch(text, from, to) ?? true);
        checked.set(from, holds);
      }
      if (holds) this.#mark(inner, OWN);
      // A pattern the token check reads holds no block: its match lies in one piece.
      if (this.#unitKinds.size === 0 || this.#lexical !== null) continue;
      for (let unit = inner; unit >= 0; unit = units.parent[unit]) {
        if (wholeChecked.has(unit)) continue;
        wholeChecked.add(unit);
        if (
          this.#unitKinds.has(units.kind[unit]) &&
          this.#holds(units.startIndex[unit], units.endIndex[unit])
        ) {
          this.#mark(unit, WHOLE);
        }
      }
    }
    for (let i = 0; i < units.count; i++) {
      if (units.parent[i] < 0 && this.#marks[i] !== NONE) this.#emit(i);
    }
    return {
      ranges: this.#ranges,
      guessed: false,
      nested: true,
      fillers: this.#fillers,
      anchorsInRanges: this.#lexical !== null,
    };
  }

  #holds(from: number, to: number): boolean {
    const part = this.#text.slice(from, to);
    return containsAll(part, this.#compiled.literals) &&
      containsInOrder(part, this.#compiled.tokens);
  }

  /** Marks a unit (a stronger mark wins) and its ancestors' own text. */
  #mark(unit: number, mark: number): void {
    if (this.#marks[unit] < mark) this.#marks[unit] = mark;
    const parent = this.#units.parent;
    for (let up = parent[unit]; up >= 0; up = parent[up]) {
      if (this.#marks[up] !== NONE) break;
      this.#marks[up] = OWN;
    }
  }

  /** The innermost unit whose range holds `at`, or -1 (between top-level statements). */
  #innermost(at: number): number {
    const { startIndex, endIndex, parent } = this.#units;
    let low = 0;
    let high = this.#units.count - 1;
    let last = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (startIndex[middle] <= at) {
        last = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    for (let unit = last; unit >= 0; unit = parent[unit]) {
      if (endIndex[unit] > at) return unit;
    }
    return -1;
  }

  /** The piece of a unit's own text (between two of its child units) that holds `at`. */
  #ownPiece(unit: number, at: number): [number, number] {
    const { startIndex, endIndex } = this.#units;
    let from = startIndex[unit];
    let to = endIndex[unit];
    for (let child = this.#firstChild[unit]; child >= 0; child = this.#nextSibling[child]) {
      if (endIndex[child] <= at) from = endIndex[child];
      else if (startIndex[child] > at) {
        to = startIndex[child];
        break;
      }
    }
    return [from, to];
  }

  /** Adds the ranges of a marked unit: all of it, or its own text and its marked children. */
  #emit(unit: number): void {
    const units = this.#units;
    let child = this.#firstChild[unit];
    if (this.#marks[unit] === WHOLE || child < 0) {
      this.#push(start(units, unit), end(units, unit));
      return;
    }
    let from = start(units, unit);
    while (child >= 0) {
      const block = units.block[child];
      const group: number[] = [];
      for (; child >= 0 && units.block[child] === block; child = this.#nextSibling[child]) {
        group.push(child);
      }
      this.#push(from, start(units, group[0]));
      const kept = group.filter((member) => this.#marks[member] !== NONE);
      if (kept.length > 0) { for (const member of kept) this.#emit(member); }
      else this.#filler(group);
      from = this.#pastComments(end(units, group[group.length - 1]), units.endIndex[unit]);
    }
    this.#push(from, end(units, unit));
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
    const { startIndex, endIndex, startRow } = this.#units;
    for (const child of group) {
      let first = startIndex[child];
      while (first < endIndex[child] && /[ \t\f]/.test(text[first])) first++;
      if (!FILLER_START.test(text[first] ?? "")) continue;
      const lineEnd = text.indexOf("\n", first);
      if (lineEnd < 0 || lineEnd >= endIndex[child]) continue;
      const column = (index: number) => index - startIndex[child];
      this.#push(start(this.#units, child), {
        index: first + 1,
        row: startRow[child],
        column: column(first + 1),
      });
      this.#push(
        { index: lineEnd, row: startRow[child], column: column(lineEnd) },
        { index: lineEnd + 1, row: startRow[child] + 1, column: 0 },
      );
      this.#fillers.add(first);
      return;
    }
    // No statement starts with a word character (a docstring alone): the shortest, whole.
    let shortest = group[0];
    const size = (unit: number) => endIndex[unit] - startIndex[unit];
    for (const child of group) {
      if (size(child) < size(shortest)) shortest = child;
    }
    this.#push(start(this.#units, shortest), end(this.#units, shortest));
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

function start(units: UnitTable, unit: number): Point {
  return {
    index: units.startIndex[unit],
    row: units.startRow[unit],
    column: units.startColumn[unit],
  };
}

function end(units: UnitTable, unit: number): Point {
  return { index: units.endIndex[unit], row: units.endRow[unit], column: units.endColumn[unit] };
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
