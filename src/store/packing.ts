/**
 * Byte layouts of the values a target keeps packed in BLOBs: unsigned varints
 * (LEB128), a string table, and the codecs built on them. Pure: values in,
 * bytes out, and back.
 */

import { constants as zlibConstants, deflateRawSync, inflateRawSync } from "node:zlib";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A growable byte buffer written with varints and raw bytes. */
export class ByteWriter {
  #bytes = new Uint8Array(256);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  #reserve(extra: number): void {
    if (this.#length + extra <= this.#bytes.length) return;
    let size = this.#bytes.length * 2;
    while (size < this.#length + extra) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = grown;
  }

  /** An unsigned integer below 2^53 as a LEB128 varint. */
  uint(value: number): void {
    this.#reserve(8);
    let v = value;
    while (v >= 0x80) {
      this.#bytes[this.#length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.#bytes[this.#length++] = v;
  }

  byte(value: number): void {
    this.#reserve(1);
    this.#bytes[this.#length++] = value;
  }

  bytes(value: Uint8Array): void {
    this.#reserve(value.length);
    this.#bytes.set(value, this.#length);
    this.#length += value.length;
  }

  /** A string as its UTF-8 byte length and bytes. */
  string(value: string): void {
    const length = value.length;
    let ascii = true;
    for (let i = 0; i < length; i++) {
      if (value.charCodeAt(i) >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (!ascii) {
      const bytes = encoder.encode(value);
      this.uint(bytes.length);
      this.bytes(bytes);
      return;
    }
    // ASCII (most names): its UTF-8 bytes are its character codes, written without encoding.
    this.uint(length);
    this.#reserve(length);
    const out = this.#bytes;
    let at = this.#length;
    for (let i = 0; i < length; i++) out[at++] = value.charCodeAt(i);
    this.#length = at;
  }

  /** The written bytes (a copy sized to fit). */
  finish(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }
}

/** Reads what a `ByteWriter` wrote; throws `RangeError` past the end. */
export class ByteReader {
  readonly #bytes: Uint8Array;
  #at = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  get done(): boolean {
    return this.#at >= this.#bytes.length;
  }

  uint(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.#at >= this.#bytes.length) throw new RangeError("packed value ends early");
      const byte = this.#bytes[this.#at++];
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 0x80;
    }
  }

  byte(): number {
    if (this.#at >= this.#bytes.length) throw new RangeError("packed value ends early");
    return this.#bytes[this.#at++];
  }

  bytes(length: number): Uint8Array {
    const start = this.skip(length);
    return this.#bytes.subarray(start, start + length);
  }

  /** Passes over `length` bytes; returns the offset of the first (no view is made). */
  skip(length: number): number {
    if (this.#at + length > this.#bytes.length) throw new RangeError("packed value ends early");
    const start = this.#at;
    this.#at += length;
    return start;
  }

  string(): string {
    return decoder.decode(this.bytes(this.uint()));
  }
}

/** How hard committed text is compressed (zlib level: 1 fastest … 9 smallest). */
const TEXT_LEVEL = 6;

/** UTF-8 bytes of committed text a stored piece holds (the last piece holds the rest). */
export const TEXT_PIECE = 16_384;
/**
 * The first byte of a text stored in pieces. A raw deflate stream never starts
 * with it: its block type bits (1-2) would be 3, which deflate reserves.
 */
const PIECES_MARK = 0xfe;

/**
 * Committed text as stored: deflate-raw of its UTF-8 bytes. A text longer
 * than `pieceBytes` is deflated piece by piece, each piece on its own (a full
 * flush ends every piece but the last), so the pieces together are still one
 * raw deflate stream and each can be inflated without those before it; the
 * stream follows `PIECES_MARK`, the number of pieces and each one's stored
 * length (varints).
 */
export function packText(text: string, pieceBytes = TEXT_PIECE): Uint8Array {
  const bytes = encoder.encode(text);
  if (bytes.length <= pieceBytes) return toBytes(deflateRawSync(bytes, { level: TEXT_LEVEL }));
  const count = Math.ceil(bytes.length / pieceBytes);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const piece = bytes.subarray(i * pieceBytes, Math.min(bytes.length, (i + 1) * pieceBytes));
    pieces.push(deflateRawSync(piece, {
      level: TEXT_LEVEL,
      finishFlush: i < count - 1 ? zlibConstants.Z_FULL_FLUSH : zlibConstants.Z_FINISH,
    }));
  }
  const out = new ByteWriter();
  out.byte(PIECES_MARK);
  out.uint(pieceBytes);
  out.uint(count);
  for (const piece of pieces) out.uint(piece.length);
  for (const piece of pieces) out.bytes(piece);
  return out.finish();
}

/** A stored text's deflate stream, and where each piece of it starts (one piece: not cut). */
interface StoredPieces {
  stream: Uint8Array;
  /** UTF-8 bytes of text per piece. */
  pieceBytes: number;
  /** Offset in `stream` of each piece's first byte, and the stream's length after the last. */
  offsets: number[];
}

function storedPieces(packed: Uint8Array): StoredPieces {
  if (packed.length === 0 || packed[0] !== PIECES_MARK) {
    return { stream: packed, pieceBytes: Infinity, offsets: [0, packed.length] };
  }
  const header = new ByteReader(packed.subarray(1));
  const pieceBytes = header.uint();
  const count = header.uint();
  const offsets = [0];
  for (let i = 0; i < count; i++) offsets.push(offsets[i] + header.uint());
  const stream = packed.subarray(packed.length - offsets[count]);
  return { stream, pieceBytes, offsets };
}

/**
 * The text `packText` stored. `bytes`, the text's size when known, sizes the
 * output at once (inflating into 16 KiB pieces and joining them costs a
 * quarter more); a wrong size only costs that.
 */
export function unpackText(packed: Uint8Array, bytes?: number): string {
  return decoder.decode(inflateRawSync(storedPieces(packed).stream, outputSize(bytes ?? 0)));
}

const LINE_FEED = 10;
/** Slices that start after the text's first byte keep a byte-order mark, as the whole text does. */
const innerDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
/** Stored bytes inflated beyond the guess, for compression that varies along the text. */
const PREFIX_SLACK = 1.15;
const PREFIX_EXTRA = 1024;

/**
 * Lines `first..last` (1-based, inclusive; `first` ≥ 1) of a text `packText`
 * stored, joined by `\n` (fewer when the text ends first, "" when it ends
 * before `first`): what slicing `unpackText`'s answer gives, without inflating
 * the text after those lines. `share` guesses the part of the text they end
 * in (0 … 1, e.g. `last` over the line count); a prefix of the stored bytes
 * that size (with slack) is inflated, and the whole text when the guess fell
 * short. Only the lines' bytes are decoded. `size`, the text's length in
 * UTF-8 bytes when known, sizes the inflated output in one buffer (zlib's
 * default is 16 KiB pieces, joined at the end). `startByte`, when not
 * negative, is the offset of a byte on line `first` (or the text's length
 * when line `first` is an empty last line): the lines are found from there
 * instead of by counting the line feeds before them, and a text stored in
 * pieces is inflated from the piece that holds their first line.
 */
export function unpackLines(
  packed: Uint8Array,
  first: number,
  last: number,
  share = 1,
  size = 0,
  startByte = -1,
): string {
  if (last < first) return "";
  const stored = storedPieces(packed);
  if (startByte >= 0 && stored.offsets.length > 2) {
    return piecesLines(stored, startByte, last - first + 1, share, size);
  }
  packed = stored.stream;
  const linesOf = startByte < 0
    ? countedLines
    : (bytes: Uint8Array, first: number, last: number, whole: boolean) =>
      linesFrom(bytes, startByte, last - first + 1, whole);
  const guess = Math.ceil(packed.length * Math.max(0, share) * PREFIX_SLACK) + PREFIX_EXTRA;
  if (guess < packed.length) {
    // A raw deflate stream cut anywhere inflates to a prefix of the text (sync flush: no error).
    const prefix = inflateRawSync(packed.subarray(0, guess), {
      finishFlush: zlibConstants.Z_SYNC_FLUSH,
      ...outputSize(Math.ceil(size * guess / packed.length)),
    });
    const lines = linesOf(plainBytes(prefix), first, last, false);
    if (lines !== null) return lines;
  }
  return linesOf(plainBytes(inflateRawSync(packed, outputSize(size))), first, last, true)!;
}

/**
 * `count` lines from the line that holds byte `at`, of a text stored in
 * pieces: inflated from the piece that holds the line's start (looked for in
 * the piece holding `at`, then in the pieces before it), first as far as the
 * guessed end of the lines (`share` of the text's `size` bytes), then to the
 * end of the text when the guess fell short.
 */
function piecesLines(
  stored: StoredPieces,
  at: number,
  count: number,
  share: number,
  size: number,
): string {
  const { stream, pieceBytes, offsets } = stored;
  const end = Math.max(0, share) * size;
  for (let piece = Math.min(offsets.length - 2, Math.floor(at / pieceBytes)); piece >= 0; piece--) {
    const base = piece * pieceBytes;
    const from = offsets[piece];
    const local = at - base;
    // Stored bytes per byte of text from this piece on, for the guess.
    const ratio = (stream.length - from) / Math.max(1, size - base);
    const guess = from + Math.ceil((end - base) * ratio * PREFIX_SLACK) + PREFIX_EXTRA;
    let earlier = false;
    for (const whole of [false, true]) {
      if (!whole && (size <= 0 || guess >= stream.length)) continue;
      const bytes = plainBytes(
        inflateRawSync(stream.subarray(from, whole ? stream.length : guess), {
          finishFlush: zlibConstants.Z_SYNC_FLUSH,
          ...outputSize(whole ? size - base : Math.ceil((guess - from) / ratio)),
        }),
      );
      if (local > bytes.length || (local === bytes.length && !whole)) {
        if (whole) return "";
        continue;
      }
      const start = local === 0 ? 0 : bytes.lastIndexOf(LINE_FEED, local - 1) + 1;
      // No line feed before `at` in this piece: the line starts in an earlier one.
      if (start === 0 && piece > 0) {
        earlier = true;
        break;
      }
      const lines = linesAt(bytes, start, count, whole, base + start === 0);
      if (lines !== null) return lines;
    }
    if (!earlier) return "";
  }
  return "";
}

/** zlib's output piece for an expected output length (0: unknown, its default). */
function outputSize(bytes: number): { chunkSize?: number } {
  return bytes > 0 ? { chunkSize: Math.max(MIN_OUTPUT, bytes + OUTPUT_SLACK) } : {};
}

/** zlib's least output piece, and room over an expected length (the end of a stream). */
const MIN_OUTPUT = 64;
const OUTPUT_SLACK = 1024;

/** A Node Buffer's bytes as a plain Uint8Array (whose `indexOf` is the engine's, not Node's). */
function plainBytes(buffer: Uint8Array): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** Lines `first..last` of UTF-8 bytes; null when `bytes` is a prefix that may end before them. */
function countedLines(
  bytes: Uint8Array,
  first: number,
  last: number,
  whole: boolean,
): string | null {
  let from = 0;
  for (let line = 1; line < first; line++) {
    const end = bytes.indexOf(LINE_FEED, from);
    if (end < 0) return whole ? "" : null;
    from = end + 1;
  }
  return linesAt(bytes, from, last - first + 1, whole);
}

/**
 * `count` lines of UTF-8 bytes from the line that holds byte `at`; null when
 * `bytes` is a prefix that may end before them.
 */
function linesFrom(bytes: Uint8Array, at: number, count: number, whole: boolean): string | null {
  if (at > bytes.length || (at === bytes.length && !whole)) return whole ? "" : null;
  const from = at === 0 ? 0 : bytes.lastIndexOf(LINE_FEED, at - 1) + 1;
  return linesAt(bytes, from, count, whole);
}

/**
 * `count` lines of UTF-8 bytes from offset `from` (a line start), joined by
 * line feeds; `textStart` when `from` is the text's first byte (a byte-order
 * mark there is not part of the text).
 */
function linesAt(
  bytes: Uint8Array,
  from: number,
  count: number,
  whole: boolean,
  textStart = from === 0,
): string | null {
  let to = from - 1;
  for (let line = 0; line < count; line++) {
    const end = bytes.indexOf(LINE_FEED, to + 1);
    if (end < 0) {
      if (!whole) return null;
      to = bytes.length;
      break;
    }
    to = end;
  }
  // A line feed is one byte in UTF-8 and never part of another character: the cut is clean.
  return (textStart ? decoder : innerDecoder).decode(bytes.subarray(from, Math.max(from, to)));
}

function toBytes(buffer: Uint8Array): Uint8Array {
  // A Node Buffer is a view on a shared pool: copy it out to its own bytes.
  return new Uint8Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length));
}

/** A range of a text: UTF-16 offsets, and 0-based rows and columns (tree-sitter's numbers). */
export interface TextRange {
  startIndex: number;
  endIndex: number;
  startRow: number;
  startColumn: number;
  endRow: number;
  endColumn: number;
}

/**
 * A statement grep may parse on its own (`indexer/statement_units.ts`): a
 * top-level statement, or a statement in a block of another unit (`parent`).
 * Its range covers whole lines: from its line start (a top-level statement
 * from its own start) to the end of its last line.
 */
export interface StatementUnit extends TextRange {
  /** Index of the enclosing unit in the same list, or -1 at top level. */
  parent: number;
  /** Which block of the parent holds it (0, 1, … in document order). */
  block: number;
  /** The grammar's id of the statement's node kind; 0 for merged statements sharing a line. */
  kind: number;
}

/** Units in pre-order (each after its parent, siblings in order), packed as varint deltas. */
export function packUnits(units: readonly StatementUnit[]): Uint8Array {
  const out = new ByteWriter();
  out.uint(units.length);
  let index = 0;
  let row = 0;
  units.forEach((unit, i) => {
    out.uint(unit.startIndex - index);
    out.uint(unit.endIndex - unit.startIndex);
    out.uint(unit.startRow - row);
    out.uint(unit.endRow - unit.startRow);
    // Columns are 0 but for a top-level statement not at a line start or one at the text's end.
    out.uint(unit.block * 4 + (unit.startColumn > 0 ? 1 : 0) + (unit.endColumn > 0 ? 2 : 0));
    if (unit.startColumn > 0) out.uint(unit.startColumn);
    if (unit.endColumn > 0) out.uint(unit.endColumn);
    out.uint(unit.parent < 0 ? 0 : i - unit.parent);
    out.uint(unit.kind);
    index = unit.startIndex;
    row = unit.startRow;
  });
  return out.finish();
}

/** The units `packUnits` packed. */
export function unpackUnits(packed: Uint8Array): StatementUnit[] {
  const input = new ByteReader(packed);
  const units: StatementUnit[] = new Array(input.uint());
  let index = 0;
  let row = 0;
  for (let i = 0; i < units.length; i++) {
    const startIndex = index + input.uint();
    const endIndex = startIndex + input.uint();
    const startRow = row + input.uint();
    const endRow = startRow + input.uint();
    const flags = input.uint();
    const startColumn = flags & 1 ? input.uint() : 0;
    const endColumn = flags & 2 ? input.uint() : 0;
    const up = input.uint();
    const block = Math.floor(flags / 4);
    const kind = input.uint();
    units[i] = {
      startIndex,
      endIndex,
      startRow,
      startColumn,
      endRow,
      endColumn,
      parent: up === 0 ? -1 : i - up,
      block,
      kind,
    };
    index = startIndex;
    row = startRow;
  }
  return units;
}

/**
 * Statement units as columns (unit `i` is entry `i` of each): what grep's plan
 * reads, decoded without an object per unit.
 */
export interface UnitTable {
  count: number;
  startIndex: Int32Array;
  endIndex: Int32Array;
  startRow: Int32Array;
  startColumn: Int32Array;
  endRow: Int32Array;
  endColumn: Int32Array;
  parent: Int32Array;
  block: Int32Array;
  kind: Int32Array;
}

function emptyTable(count: number): UnitTable {
  // One allocation, nine views: a grep plan decodes the units of hundreds of files.
  const all = new Int32Array(count * 9);
  const column = (k: number) => all.subarray(k * count, (k + 1) * count);
  return {
    count,
    startIndex: column(0),
    endIndex: column(1),
    startRow: column(2),
    startColumn: column(3),
    endRow: column(4),
    endColumn: column(5),
    parent: column(6),
    block: column(7),
    kind: column(8),
  };
}

/** The units `packUnits` packed, as columns (the same values `unpackUnits` gives). */
export function unpackUnitTable(packed: Uint8Array): UnitTable {
  const bytes = packed;
  let at = 0;
  // Varints read inline, one byte the common case: this runs for every unit a grep plans.
  const more = (first: number): number => {
    let result = first & 0x7f;
    let scale = 0x80;
    for (;;) {
      if (at >= bytes.length) throw new RangeError("packed value ends early");
      const byte = bytes[at++];
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 0x80;
    }
  };
  const uint = (): number => {
    if (at >= bytes.length) throw new RangeError("packed value ends early");
    const byte = bytes[at++];
    return byte < 0x80 ? byte : more(byte);
  };
  const table = emptyTable(uint());
  const { startIndex, endIndex, startRow, endRow, startColumn, endColumn, parent, block, kind } =
    table;
  let index = 0;
  let row = 0;
  for (let i = 0; i < table.count; i++) {
    index += uint();
    startIndex[i] = index;
    endIndex[i] = index + uint();
    row += uint();
    startRow[i] = row;
    endRow[i] = row + uint();
    const flags = uint();
    if (flags & 1) startColumn[i] = uint();
    if (flags & 2) endColumn[i] = uint();
    const up = uint();
    parent[i] = up === 0 ? -1 : i - up;
    block[i] = flags >>> 2;
    kind[i] = uint();
  }
  return table;
}

/** Units as columns. */
export function unitTableOf(units: readonly StatementUnit[]): UnitTable {
  const table = emptyTable(units.length);
  units.forEach((unit, i) => {
    table.startIndex[i] = unit.startIndex;
    table.endIndex[i] = unit.endIndex;
    table.startRow[i] = unit.startRow;
    table.startColumn[i] = unit.startColumn;
    table.endRow[i] = unit.endRow;
    table.endColumn[i] = unit.endColumn;
    table.parent[i] = unit.parent;
    table.block[i] = unit.block;
    table.kind[i] = unit.kind;
  });
  return table;
}

/** A chunk content hash (hex) as the integer the target keys it by: its first 52 bits. */
export function contentKey(hexHash: string): number {
  return parseInt(hexHash.slice(0, 13), 16);
}
