/**
 * Lines of a text, pure: where each line starts, a 1-based slice of lines (the
 * snippet of every hit), and the line and column of an offset.
 */

/** Lines a snippet holds at most. */
export const SNIPPET_LINES = 40;

/** A text with the offset where each of its lines starts. */
export class LineIndex {
  readonly text: string;
  /** Offset of the first character of each line (a text always has one line). */
  readonly starts: number[];

  constructor(text: string) {
    this.text = text;
    this.starts = [0];
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.starts.push(i + 1);
  }

  /** Lines `start..end` (1-based, inclusive), at most `maxLines` of them, joined by `\n`. */
  slice(start: number, end: number, maxLines = SNIPPET_LINES): string {
    const first = Math.max(1, start);
    const last = Math.min(end, start + maxLines - 1, this.starts.length);
    if (first > this.starts.length || last < first) return "";
    const from = this.starts[first - 1];
    const to = last < this.starts.length ? this.starts[last] - 1 : this.text.length;
    return this.text.slice(from, Math.max(from, to));
  }

  /** The 1-based line and column (UTF-16 code units, as LSP counts by default) of an offset. */
  position(offset: number): { line: number; col: number } {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, col: offset - this.starts[low] + 1 };
  }
}

/** Lines `start..end` (1-based, inclusive) of a text, at most `maxLines` of them. */
export function sliceLines(
  text: string,
  start: number,
  end: number,
  maxLines = SNIPPET_LINES,
): string {
  return new LineIndex(text).slice(start, end, maxLines);
}

/**
 * A copy of `text` that holds no reference to a longer string. V8 makes a substring of 13 or
 * more characters (from `slice`, `split`, `trim`…) a view of its parent, so a line kept in a
 * cache would keep its whole file alive; the concatenation is flattened into a new string before
 * the slice, whose parent is then only that copy.
 */
export function ownString(text: string): string {
  return (" " + text).slice(1);
}
