/**
 * Byte layouts of the values a target keeps packed in BLOBs: unsigned varints
 * (LEB128), a string table, and the codecs built on them. Pure: values in,
 * bytes out, and back.
 */

import { deflateRawSync, inflateRawSync } from "node:zlib";

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
    const bytes = encoder.encode(value);
    this.uint(bytes.length);
    this.bytes(bytes);
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
    if (this.#at + length > this.#bytes.length) throw new RangeError("packed value ends early");
    const out = this.#bytes.subarray(this.#at, this.#at + length);
    this.#at += length;
    return out;
  }

  string(): string {
    return decoder.decode(this.bytes(this.uint()));
  }
}

/** How hard committed text is compressed (zlib level: 1 fastest … 9 smallest). */
const TEXT_LEVEL = 6;

/** Committed text as stored: deflate-raw of its UTF-8 bytes. */
export function packText(text: string): Uint8Array {
  return toBytes(deflateRawSync(encoder.encode(text), { level: TEXT_LEVEL }));
}

/** The text `packText` stored. */
export function unpackText(packed: Uint8Array): string {
  return decoder.decode(inflateRawSync(packed));
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

/** Ranges in increasing, non-overlapping order, packed as varint deltas. */
export function packRanges(ranges: readonly TextRange[]): Uint8Array {
  const out = new ByteWriter();
  out.uint(ranges.length);
  let index = 0;
  let row = 0;
  for (const range of ranges) {
    out.uint(range.startIndex - index);
    out.uint(range.endIndex - range.startIndex);
    out.uint(range.startRow - row);
    out.uint(range.startColumn);
    out.uint(range.endRow - range.startRow);
    out.uint(range.endColumn);
    index = range.endIndex;
    row = range.endRow;
  }
  return out.finish();
}

/** The ranges `packRanges` packed. */
export function unpackRanges(packed: Uint8Array): TextRange[] {
  const input = new ByteReader(packed);
  const ranges: TextRange[] = new Array(input.uint());
  let index = 0;
  let row = 0;
  for (let i = 0; i < ranges.length; i++) {
    const startIndex = index + input.uint();
    const endIndex = startIndex + input.uint();
    const startRow = row + input.uint();
    const startColumn = input.uint();
    const endRow = startRow + input.uint();
    const endColumn = input.uint();
    ranges[i] = { startIndex, endIndex, startRow, startColumn, endRow, endColumn };
    index = endIndex;
    row = endRow;
  }
  return ranges;
}

/** A chunk content hash (hex) as the integer the target keys it by: its first 52 bits. */
export function contentKey(hexHash: string): number {
  return parseInt(hexHash.slice(0, 13), 16);
}
