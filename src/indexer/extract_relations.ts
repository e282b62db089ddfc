/** References → relation rows, each owned by the innermost definition enclosing its site. */
import type { RelationRow } from "./parse_types.ts";
import type { Reference } from "./extract_matches.ts";
import { type Definition, sameNode } from "./extract_names.ts";
import { clip } from "./extract_nodes.ts";

/**
 * The relation rows of a file's references (`definitions` in source order): a node captured as
 * a call, import or base class is not also a plain reference, two patterns on one node count
 * once, and a definition's own name is not a reference to it. At most `limit` rows; a cut is a
 * diagnostic.
 */
export function relationRows(
  references: readonly Reference[],
  definitions: readonly Definition[],
  options: {
    limit: number;
    /** Offsets where the lines of the parsed text start (`lineStarts`). */
    lines: readonly number[];
  },
): { rows: RelationRow[]; diagnostics: string[] } {
  const { limit, lines } = options;
  // Stable: references at one offset keep their match order.
  const sorted = [...references].sort((a, b) => a.start - b.start);
  const rows: RelationRow[] = [];
  const owners = new OwnerWalk(definitions);
  // References at one offset are adjacent: [runStart, runEnd) share `start`, so a node captured
  // twice (same start and end) is found within its run.
  let runStart = 0;
  let runEnd = 0;
  for (let i = 0; i < sorted.length; i++) {
    const ref = sorted[i];
    const at = ref.start;
    if (i >= runEnd) {
      runStart = i;
      runEnd = i + 1;
      while (runEnd < sorted.length && sorted[runEnd].start === at) runEnd++;
    }
    const owner = owners.at(at);
    if (ref.kind === "references") {
      // A definition's own name is not a reference to it.
      if (owner && owner.nameNode.startIndex === at) continue;
      // A node captured as a call, import or base class is not also a plain reference; every
      // site is kept (navigation needs them all), but two patterns on one node count once.
      if (capturedBefore(sorted, runStart, runEnd, i, ref.end)) continue;
    }
    if (rows.length >= limit) {
      return { rows, diagnostics: [`limit: kept the first ${limit} relations`] };
    }
    const endRow = lineAt(lines, ref.end);
    rows.push({
      kind: ref.kind,
      from_symbol: owner ? owner.id : null,
      target: clip(ref.name, 300),
      receiver: ref.receiver,
      module: ref.module,
      alias: ref.alias,
      start_line: ref.startRow + 1,
      start_col: ref.startColumn + 1,
      end_line: endRow + 1,
      end_col: ref.end - lines[endRow] + 1,
    });
  }
  return { rows, diagnostics: [] };
}

/**
 * Whether the plain reference `sorted[index]` (ending at `end`) is dropped for another capture
 * of its node in its run: any stronger kind anywhere in the run, or a plain reference before it.
 */
function capturedBefore(
  sorted: readonly Reference[],
  runStart: number,
  runEnd: number,
  index: number,
  end: number,
): boolean {
  for (let j = runStart; j < runEnd; j++) {
    const other = sorted[j];
    if (j === index || other.end !== end) continue;
    if (other.kind !== "references" || j < index) return true;
  }
  return false;
}

/**
 * Offsets where the lines of a text start: a tree's rows count line feeds and its columns count
 * UTF-16 code units from the line's start, so a node's end position follows from its end offset.
 */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  return starts;
}

/** The 0-based line holding an offset (`lines`: line starts). */
function lineAt(lines: readonly number[], offset: number): number {
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lines[mid] <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** The innermost definition enclosing increasing offsets, walking definitions in source order. */
class OwnerWalk {
  readonly #definitions: readonly Definition[];
  readonly #stack: Definition[] = [];
  #next = 0;

  constructor(definitions: readonly Definition[]) {
    this.#definitions = definitions;
  }

  /** The owner of the site at `offset`; offsets must not decrease between calls. */
  at(offset: number): Definition | null {
    const stack = this.#stack;
    while (
      this.#next < this.#definitions.length &&
      this.#definitions[this.#next].start <= offset
    ) {
      const def = this.#definitions[this.#next++];
      while (stack.length > 0 && stack[stack.length - 1].end <= def.start) stack.pop();
      // Names declared together: references inside belong to the first of them.
      if (stack.length === 0 || !sameNode(stack[stack.length - 1], def)) stack.push(def);
    }
    while (stack.length > 0 && stack[stack.length - 1].end <= offset) stack.pop();
    return stack.length > 0 ? stack[stack.length - 1] : null;
  }
}
