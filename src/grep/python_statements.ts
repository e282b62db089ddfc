/**
 * Top-level statement ranges of Python source found by a lexer, before any
 * parse: a statement starts at a line that begins at column 0 outside any
 * string, bracket or continuation, is neither a comment nor a clause of the
 * statement above (`else`, `elif`, `except`, `finally`), and does not follow a
 * decorator line. Pure: text in, ranges out.
 */
import type { Range } from "web-tree-sitter";

const CLAUSE = /^(?:else|elif|except|finally)\b/;
const STRING_PREFIX = /^[rRbBuUfF]{0,2}$/;

/** The statement ranges of a Python text, or null when its strings do not close. */
export function pythonStatementRanges(text: string): Range[] | null {
  const starts: { index: number; row: number }[] = [];
  let depth = 0;
  let row = 0;
  let continued = false;
  let afterDecorator = false;
  let i = 0;
  const length = text.length;
  while (i < length) {
    // At a line start.
    const lineStart = i;
    const first = text[i];
    if (depth === 0 && !continued && first !== undefined && !/\s|#/.test(first)) {
      const rest = text.slice(i, i + 8);
      if (!CLAUSE.test(rest) && !afterDecorator) starts.push({ index: lineStart, row });
      afterDecorator = first === "@";
    }
    continued = false;
    // Through the line (strings may carry the scan over several lines).
    while (i < length && text[i] !== "\n") {
      const c = text[i];
      if (c === "#") {
        while (i < length && text[i] !== "\n") i++;
        break;
      }
      if (c === "'" || c === '"') {
        if (!hasStringPrefix(text, i)) return null;
        const end = stringEnd(text, i);
        if (end < 0) return null;
        for (let k = i; k < end; k++) if (text[k] === "\n") row++;
        i = end;
        continue;
      }
      if (c === "(" || c === "[" || c === "{") depth++;
      else if ((c === ")" || c === "]" || c === "}") && depth > 0) depth--;
      else if (c === "\\" && text[i + 1] === "\n") {
        continued = true;
        i++;
        break;
      }
      i++;
    }
    if (i < length && text[i] === "\n") {
      i++;
      row++;
    }
  }
  // Whatever precedes the first statement (a byte-order mark, comments) belongs to the first range.
  if (starts.length === 0 || starts[0].index !== 0) starts.unshift({ index: 0, row: 0 });
  const ranges: Range[] = [];
  for (let k = 0; k < starts.length; k++) {
    const start = starts[k];
    const next = starts[k + 1];
    ranges.push({
      startIndex: start.index,
      endIndex: next ? next.index : length,
      startPosition: { row: start.row, column: 0 },
      endPosition: next
        ? { row: next.row, column: 0 }
        : { row, column: length - (text.lastIndexOf("\n") + 1) },
    });
  }
  return ranges;
}

/** Whether the word right before a quote is empty or a string prefix (`rb"…"`); else not Python. */
function hasStringPrefix(text: string, quote: number): boolean {
  let start = quote;
  while (start > 0 && /[A-Za-z0-9_]/.test(text[start - 1])) start--;
  return STRING_PREFIX.test(text.slice(start, quote));
}

/** The index just after the string literal opening at `quote`, or -1 when it never closes. */
function stringEnd(text: string, quote: number): number {
  const q = text[quote];
  const triple = text[quote + 1] === q && text[quote + 2] === q;
  if (triple) {
    const close = q.repeat(3);
    let i = quote + 3;
    while (i < text.length) {
      if (text[i] === "\\") {
        i += 2;
        continue;
      }
      if (text.startsWith(close, i)) return i + 3;
      i++;
    }
    return -1;
  }
  let i = quote + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === q) return i + 1;
    // An unterminated one-line string ends at the line end (the parser reports it).
    if (c === "\n") return i;
    i++;
  }
  return text.length;
}
