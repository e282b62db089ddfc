/**
 * AST-aware chunking, pure: lines and definition ranges in, chunk ranges out. Boundaries fall at definitions; small siblings merge up to the
 * budget; large bodies split into overlapping windows at statement starts;
 * every chunk carries its enclosing symbol path.
 */

/** A definition as the chunker sees it (0-based, inclusive lines). */
export interface ChunkDefinition {
  startLine: number;
  endLine: number;
  /** Line where the body starts: a window never ends before it (no split mid-signature). */
  bodyLine: number;
  symbolPath: string;
  /** Lines where direct statements of the body start: preferred split points. */
  breaks: number[];
  children: ChunkDefinition[];
}

export interface ChunkRange {
  startLine: number;
  endLine: number;
  kind: "definition" | "block" | "section" | "text";
  symbolPath: string | null;
}

export interface ChunkOptions {
  /** Characters per chunk before splitting or stopping a merge. */
  budget: number;
  /** Lines repeated at the start of the next window of a split body. */
  overlap: number;
}

export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { budget: 1800, overlap: 3 };

interface Segment {
  startLine: number;
  endLine: number;
  definition: ChunkDefinition | null;
}

/** Chunks a file with structure: `definitions` are the top-level ones, nested by `children`. */
export function chunkDefinitions(
  lineLengths: readonly number[],
  definitions: readonly ChunkDefinition[],
  options: ChunkOptions = DEFAULT_CHUNK_OPTIONS,
): ChunkRange[] {
  const chunks: ChunkRange[] = [];
  if (lineLengths.length === 0) return chunks;
  const sizer = new LineSizer(lineLengths);
  chunkRange(sizer, { start: 0, end: lineLengths.length - 1, path: null }, definitions, {
    options,
    chunks,
  });
  return chunks.filter((chunk) => !sizer.blank(chunk.startLine, chunk.endLine));
}

/** Chunks search-only text: Markdown at headings, everything else in overlapping windows. */
export function chunkText(
  lines: readonly string[],
  chunking: "headings" | "lines",
  options: ChunkOptions = DEFAULT_CHUNK_OPTIONS,
): ChunkRange[] {
  const sizer = new LineSizer(lines.map((line) => line.length + 1));
  const chunks: ChunkRange[] = [];
  if (lines.length === 0) return chunks;
  if (chunking === "lines") {
    splitWindows(sizer, { start: 0, end: lines.length - 1, path: null }, [], 0, {
      options,
      chunks,
    }, "text");
  } else {
    const headings: number[] = [];
    let fenced = false;
    lines.forEach((line, index) => {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      else if (!fenced && /^#{1,6}\s/.test(line)) headings.push(index);
    });
    if (headings[0] !== 0) headings.unshift(0);
    const trail: string[] = [];
    headings.forEach((start, i) => {
      const end = i + 1 < headings.length ? headings[i + 1] - 1 : lines.length - 1;
      const match = /^(#{1,6})\s+(.*)$/.exec(lines[start]);
      if (match) {
        trail.length = Math.min(trail.length, match[1].length - 1);
        trail[match[1].length - 1] = match[2].trim();
      }
      const path = trail.filter((part) => part).join(" > ") || null;
      splitWindows(sizer, { start, end, path }, [], start, { options, chunks }, "section");
    });
  }
  return chunks.filter((chunk) => !sizer.blank(chunk.startLine, chunk.endLine));
}

class LineSizer {
  private readonly prefix: number[];
  constructor(private readonly lengths: readonly number[]) {
    this.prefix = [0];
    for (const length of lengths) this.prefix.push(this.prefix[this.prefix.length - 1] + length);
  }
  size(start: number, end: number): number {
    return this.prefix[end + 1] - this.prefix[start];
  }
  blank(start: number, end: number): boolean {
    for (let line = start; line <= end; line++) if (this.lengths[line] > 1) return false;
    return true;
  }
}

interface Span {
  start: number;
  end: number;
  path: string | null;
}

interface Sink {
  options: ChunkOptions;
  chunks: ChunkRange[];
}

function chunkRange(
  sizer: LineSizer,
  span: Span,
  children: readonly ChunkDefinition[],
  sink: Sink,
  self: ChunkDefinition | null = null,
): void {
  if (sizer.size(span.start, span.end) <= sink.options.budget) {
    sink.chunks.push({
      startLine: span.start,
      endLine: span.end,
      kind: self ? "definition" : "block",
      symbolPath: span.path,
    });
    return;
  }
  if (children.length === 0) {
    splitWindows(sizer, span, self?.breaks ?? [], self?.bodyLine ?? span.start, sink, "definition");
    return;
  }
  const segments: Segment[] = [];
  let cursor = span.start;
  for (const child of children) {
    if (child.startLine > cursor) {
      segments.push({ startLine: cursor, endLine: child.startLine - 1, definition: null });
    }
    segments.push({ startLine: child.startLine, endLine: child.endLine, definition: child });
    cursor = child.endLine + 1;
  }
  if (cursor <= span.end) segments.push({ startLine: cursor, endLine: span.end, definition: null });

  let group: Segment[] = [];
  const flush = () => {
    if (group.length === 0) return;
    // One definition plus blank gaps is still that definition's chunk.
    const definitions = group.filter((segment) => segment.definition);
    const gapsBlank = group.every((segment) =>
      segment.definition !== null || sizer.blank(segment.startLine, segment.endLine)
    );
    const only = definitions.length === 1 && gapsBlank ? definitions[0].definition : null;
    sink.chunks.push({
      startLine: group[0].startLine,
      endLine: group[group.length - 1].endLine,
      kind: only ? "definition" : "block",
      symbolPath: only ? only.symbolPath : span.path,
    });
    group = [];
  };
  for (const segment of segments) {
    const size = sizer.size(segment.startLine, segment.endLine);
    if (size > sink.options.budget) {
      flush();
      if (segment.definition) {
        const def = segment.definition;
        chunkRange(
          sizer,
          { start: def.startLine, end: def.endLine, path: def.symbolPath },
          def.children,
          sink,
          def,
        );
      } else {
        const gap = { start: segment.startLine, end: segment.endLine, path: span.path };
        splitWindows(sizer, gap, self?.breaks ?? [], gap.start, sink, "block");
      }
      continue;
    }
    const groupSize = group.length === 0
      ? 0
      : sizer.size(group[0].startLine, group[group.length - 1].endLine);
    if (groupSize + size > sink.options.budget) flush();
    group.push(segment);
  }
  flush();
}

/** Overlapping windows over a span, ending at preferred breaks when one fits. */
function splitWindows(
  sizer: LineSizer,
  span: Span,
  breaks: readonly number[],
  minimumEnd: number,
  sink: Sink,
  kind: ChunkRange["kind"],
): void {
  let start = span.start;
  while (start <= span.end) {
    let end = start;
    while (end < span.end && sizer.size(start, end + 1) <= sink.options.budget) end++;
    end = Math.max(end, Math.min(minimumEnd, span.end));
    if (end < span.end) {
      // Prefer to end just before a statement start that lies in the window's later half.
      const candidates = breaks.filter((line) => line - 1 > start && line - 1 <= end);
      const best = candidates.length > 0 ? candidates[candidates.length - 1] - 1 : -1;
      if (best >= Math.max(minimumEnd, start + Math.floor((end - start) / 2))) end = best;
    }
    sink.chunks.push({ startLine: start, endLine: end, kind, symbolPath: span.path });
    if (end >= span.end) break;
    start = Math.max(start + 1, end + 1 - sink.options.overlap);
  }
}
