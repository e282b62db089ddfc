/**
 * FTS5's totals of the chunk index, kept true across deletes. bm25 reads two figures from the
 * FTS5 "averages" record (`source_chunks_fts_data`, id 1): the rows in the index and the tokens
 * of each column. A `contentless_delete=1` table leaves both as they were when a row is deleted
 * (it keeps no text to count), so every refresh that rewrote a file left them larger, and a
 * long-lived target's bm25 drifted from a fresh build's of the same text (its idf and average
 * length). The writer counts what it deletes from the rows' stored sizes (`%_docsize`) and takes
 * it off the record before it commits.
 */

/** The SQLite varints of a blob (FTS5's document sizes and averages record), in order. */
export function readVarints(blob: Uint8Array): number[] {
  const values: number[] = [];
  let i = 0;
  while (i < blob.length) {
    let value = 0;
    for (let n = 0; i < blob.length; n++) {
      const byte = blob[i++];
      if (n === 8) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    values.push(value);
  }
  return values;
}

/**
 * The SQLite varint encoding of non-negative safe integers, in order (below 2^53, so never the
 * nine-byte form, which starts at 2^56).
 */
export function writeVarints(values: readonly number[]): Uint8Array {
  const out: number[] = [];
  for (const value of values) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`varint: ${value} is not a non-negative safe integer`);
    }
    const groups = [value % 128];
    let rest = Math.floor(value / 128);
    while (rest > 0) {
      groups.unshift((rest % 128) | 0x80);
      rest = Math.floor(rest / 128);
    }
    out.push(...groups);
  }
  return new Uint8Array(out);
}

/** Rows and per-column tokens taken out of an FTS5 index in one transaction. */
export class RemovedTotals {
  rows = 0;
  readonly tokens: number[] = [];

  /** Counts one deleted row from its stored document size (one varint per column). */
  add(size: Uint8Array): void {
    this.rows++;
    readVarints(size).forEach((tokens, column) => {
      this.tokens[column] = (this.tokens[column] ?? 0) + tokens;
    });
  }

  clear(): void {
    this.rows = 0;
    this.tokens.length = 0;
  }

  /** The averages record with these rows and tokens taken off (never below zero). */
  subtractFrom(record: Uint8Array): Uint8Array {
    const [rows = 0, ...columns] = readVarints(record);
    return writeVarints([
      Math.max(0, rows - this.rows),
      ...columns.map((tokens, column) => Math.max(0, tokens - (this.tokens[column] ?? 0))),
    ]);
  }
}
