/**
 * A parsed file turned into the form its target stores, inside the parse
 * Worker so the single writer only inserts: relations packed, text compressed,
 * the tree's statement units packed (`statement_units.ts`), a hashing vector per chunk,
 * and whether the chunk terms cover every code term of the text.
 */
import type { Node } from "web-tree-sitter";
import { hashVector, quantizedBytes } from "../engine/vector.ts";
import { chunkTermCounts } from "./extract_chunks.ts";
import { packText, packUnits } from "../store/packing.ts";
import { packRelations } from "../store/relation_pack.ts";
import { statementUnits } from "./statement_units.ts";
import type { ChunkRow, FileRows, ParseOutput } from "../store/records.ts";

/** The stored form of one parsed file. `bytes` are the UTF-8 bytes of `text`. */
export function fileRows(options: {
  output: ParseOutput;
  text: string;
  bytes: Uint8Array;
  /** The root of a tree of `text`, when it was parsed with structure. */
  root?: Node | null;
}): FileRows {
  const { output, text, bytes, root } = options;
  return {
    symbols: output.symbols,
    chunks: output.chunks.map((chunk) => ({
      ...chunk,
      vector: quantizedBytes(hashVector(chunkTermCounts(chunk))),
    })),
    relations: packRelations(output.relations),
    imports: importModules(output.relations),
    text: packText(text),
    regions: root && !root.hasError ? packUnits(statementUnits(root, text)) : null,
    termsComplete: chunksCoverText(bytes, output.chunks),
    diagnostics: output.diagnostics,
    failed: output.failed,
  };
}

/** The distinct modules of a file's import rows, in source order. */
function importModules(relations: ParseOutput["relations"]): string[] {
  const modules = new Set<string>();
  for (const row of relations) {
    if (row.kind === "imports" && row.module !== null) modules.add(row.module);
  }
  return [...modules];
}

/**
 * Whether the chunks' code terms hold every code term of the text: every byte
 * outside the chunks is white space, and no chunk starts or ends inside a run
 * of identifier characters (a character window of a very long line may).
 */
export function chunksCoverText(bytes: Uint8Array, chunks: readonly ChunkRow[]): boolean {
  const ordered = [...chunks].sort((a, b) => a.start_byte - b.start_byte);
  let covered = 0;
  for (const chunk of ordered) {
    for (let at = covered; at < chunk.start_byte; at++) if (!isSpace(bytes[at])) return false;
    if (splitsWord(bytes, chunk.start_byte) || splitsWord(bytes, chunk.end_byte)) return false;
    covered = Math.max(covered, chunk.end_byte);
  }
  for (let at = covered; at < bytes.length; at++) if (!isSpace(bytes[at])) return false;
  return true;
}

function splitsWord(bytes: Uint8Array, at: number): boolean {
  return at > 0 && at < bytes.length && isWordByte(bytes[at - 1]) && isWordByte(bytes[at]);
}

/** ASCII letters, digits, `_`, `$`, and any byte of a multi-byte character (it may be a letter). */
function isWordByte(byte: number): boolean {
  return byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) ||
    (byte >= 0x61 && byte <= 0x7a) || byte === 0x5f || byte === 0x24;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c ||
    byte === 0x0b;
}
