/**
 * The lines a definition owns in its text (pure): from the decorators,
 * attributes and comments written directly above it (a multi-line decorator
 * included) to its last line, plus the blank lines that follow it. The index
 * records where the definition itself starts; citations and context packs
 * quote the lines around it too.
 */

/** Lines looked at above a definition at most. */
const MAX_ABOVE = 400;
/** Blank lines after a definition that still belong to it. */
const MAX_BLANK_AFTER = 3;

/** The first and last line (1-based) a definition at `start`..`end` owns in `lines`. */
export function definitionExtent(
  lines: readonly string[],
  start: number,
  end: number,
): { start: number; end: number } {
  const indent = indentOf(lines[start - 1] ?? "");
  let first = start;
  for (let line = start - 1; line >= 1 && start - line <= MAX_ABOVE; line--) {
    const text = lines[line - 1] ?? "";
    const trimmed = text.trim();
    if (trimmed === "") break;
    const depth = indentOf(text);
    if (depth < indent) break;
    if (depth > indent) continue; // a decorator's arguments, or the body of something above
    if (/^(@|#\[|\[[A-Za-z])/.test(trimmed) || /^(#|\/\/|\/\*|\*)/.test(trimmed)) {
      first = line;
      continue;
    }
    if (/^[)\]}]/.test(trimmed)) continue; // the closing bracket of a decorator's arguments
    break;
  }
  let last = end;
  while (last < lines.length && last - end < MAX_BLANK_AFTER && (lines[last] ?? "").trim() === "") {
    last++;
  }
  return { start: first, end: last };
}

function indentOf(line: string): number {
  return /^[ \t]*/.exec(line)![0].replaceAll("\t", "    ").length;
}
