/**
 * Chunk rows of a file: definition-shaped ranges for files with structure, heading or line
 * windows for text (ranges from `engine/chunker.ts`), with byte offsets, stable keys, content
 * hashes and search terms; over-long lines are cut into character windows.
 */
import {
  type ChunkDefinition,
  chunkDefinitions,
  type ChunkRange,
  chunkText,
} from "../engine/chunker.ts";
import { codeTerms } from "../engine/tokenizer.ts";
import { termCounts } from "../engine/vector.ts";
import { sha256Hex, stableId } from "../engine/hash.ts";
import type { ChunkRow } from "./parse_types.ts";
import type { Definition } from "./extract_names.ts";

/** The chunks of a file with structure (`definitions`: the kept ones, parents linked). */
export function structureChunks(
  options: { text: string; path: string; definitions: readonly Definition[]; maxChars: number },
): ChunkRow[] {
  const lines = splitLines(options.text);
  const top = options.definitions.filter((def) => def.parent === null).map(chunkDefinition);
  const ranges = chunkDefinitions(lines.map((line) => line.length + 1), nonOverlapping(top));
  return chunkRows({ ...options, lines, ranges });
}

/** The chunks of a search-only text file. */
export function textChunks(
  options: { text: string; path: string; chunking: "headings" | "lines"; maxChars: number },
): ChunkRow[] {
  const lines = splitLines(options.text);
  return chunkRows({ ...options, lines, ranges: chunkText(lines, options.chunking) });
}

function chunkDefinition(def: Definition): ChunkDefinition {
  const body = def.node.childForFieldName("body");
  return {
    startLine: def.chunkStart,
    endLine: def.node.endPosition.row,
    bodyLine: body ? body.startPosition.row : def.node.startPosition.row,
    symbolPath: def.qualified,
    breaks: body ? body.namedChildren.map((child) => child!.startPosition.row) : [],
    children: def.children.map(chunkDefinition),
  };
}

/** Siblings whose leading comments reach into the previous sibling are trimmed back. */
function nonOverlapping(defs: readonly ChunkDefinition[]): ChunkDefinition[] {
  let previousEnd = -1;
  const trimmed = defs.map((def) => {
    const startLine = def.startLine <= previousEnd
      ? Math.min(previousEnd + 1, def.endLine)
      : def.startLine;
    previousEnd = def.endLine;
    return { ...def, startLine, children: nonOverlapping(def.children) };
  });
  return trimmed.filter((def, i) => i === 0 || def.startLine > trimmed[i - 1].endLine);
}

/**
 * A chunk's content hash, the key of its stored vectors: of its symbol path and text, what its
 * hashing vector is made of (its terms count the symbol path's), so equal keys are equal vectors
 * whichever chunk was written first. A symbol path holds no NUL.
 */
function contentHash(symbolPath: string | null, text: string): string {
  return sha256Hex(`${symbolPath ?? ""}\0${text}`).slice(0, 32);
}

function chunkRows(options: {
  text: string;
  lines: string[];
  path: string;
  ranges: ChunkRange[];
  maxChars: number;
}): ChunkRow[] {
  const { text, lines, path } = options;
  // Character and byte offsets of each line start, computed once (linear in the file).
  const offsets: number[] = [0];
  const byteOffsets: number[] = [0];
  for (const line of lines) {
    offsets.push(offsets[offsets.length - 1] + line.length + 1);
    byteOffsets.push(byteOffsets[byteOffsets.length - 1] + utf8Length(line) + 1);
  }
  const ordinals = new Map<string, number>();
  const rows: ChunkRow[] = [];
  const push = (range: ChunkRange, startByte: number, endByte: number, chunkText: string) => {
    const pathKey = range.symbolPath ?? "";
    const ordinal = ordinals.get(pathKey) ?? 0;
    ordinals.set(pathKey, ordinal + 1);
    const symbolTerms = range.symbolPath ? codeTerms(range.symbolPath) : [];
    const textTerms = codeTerms(chunkText);
    const row: ChunkRow = {
      chunk_key: stableId([path, pathKey, ordinal]),
      start_line: range.startLine + 1,
      end_line: range.endLine + 1,
      start_byte: startByte,
      end_byte: endByte,
      kind: range.kind,
      symbol_path: range.symbolPath,
      content_hash: contentHash(range.symbolPath, chunkText),
      terms: (range.symbolPath ? symbolTerms.join(" ") + " " : "") + textTerms.join(" "),
    };
    COUNTS.set(row, countTerms(symbolTerms, textTerms));
    rows.push(row);
  };
  for (const range of options.ranges) {
    const startChar = offsets[range.startLine];
    const endChar = Math.min(text.length, offsets[range.endLine + 1] - 1);
    if (endChar - startChar <= options.maxChars) {
      const chunkText = text.slice(startChar, endChar);
      push(range, byteOffsets[range.startLine], byteOffsets[range.endLine + 1] - 1, chunkText);
      continue;
    }
    // Lines too long to chunk by lines (minified or generated code): character windows.
    for (const window of characterWindows(text, { start: startChar, end: endChar }, options)) {
      const startLine = lineAt(offsets, window.start);
      const endLine = lineAt(offsets, window.end - 1);
      const chunkText = text.slice(window.start, window.end);
      const startByte = byteOffsets[startLine] +
        utf8Length(text.slice(offsets[startLine], window.start));
      push(
        { ...range, startLine, endLine },
        startByte,
        startByte + utf8Length(chunkText),
        chunkText,
      );
    }
  }
  return rows;
}

/** Term counts of the chunks made here, counted from their terms before they were joined. */
const COUNTS = new WeakMap<ChunkRow, Map<string, number>>();

/**
 * A chunk's term counts in order of first appearance: `termCounts(chunk.terms)`, counted when
 * the chunk was made when it was made here (the terms are the tokenizer's own strings then,
 * cheaper to count than the split text).
 */
export function chunkTermCounts(chunk: ChunkRow): Map<string, number> {
  return COUNTS.get(chunk) ?? termCounts(chunk.terms);
}

function countTerms(...lists: string[][]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const list of lists) {
    for (const term of list) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return counts;
}

/** Windows of at most `maxChars` characters, ending after a separator when one is near. */
function characterWindows(
  text: string,
  span: { start: number; end: number },
  options: { maxChars: number },
): { start: number; end: number }[] {
  const { maxChars } = options;
  const windows: { start: number; end: number }[] = [];
  let at = span.start;
  while (at < span.end) {
    let stop = Math.min(span.end, at + maxChars);
    if (stop < span.end) {
      const slice = text.slice(at + maxChars / 2, stop);
      const cut = Math.max(
        slice.lastIndexOf(";"),
        slice.lastIndexOf("}"),
        slice.lastIndexOf("\n"),
        slice.lastIndexOf(" "),
        slice.lastIndexOf(","),
      );
      if (cut >= 0) stop = at + maxChars / 2 + cut + 1;
    }
    windows.push({ start: at, end: stop });
    at = stop;
  }
  return windows;
}

/** The 0-based line holding a character offset (offsets: line starts). */
function lineAt(offsets: number[], char: number): number {
  let low = 0;
  let high = offsets.length - 2;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (offsets[mid] <= char) low = mid;
    else high = mid - 1;
  }
  return low;
}

const encoder = new TextEncoder();
function utf8Length(line: string): number {
  // ASCII fast path: most source lines need no encoding.
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(line) ? line.length : encoder.encode(line).length;
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
