/**
 * The vector scan's inner loop as a tiny WebAssembly SIMD function over an
 * index stored by column (every row's value of dimension 0, then of
 * dimension 1, …): it adds `weight × column` into one int32 sum per row for
 * each listed column, four columns per pass over the sums, sixteen rows per
 * step. Two columns' bytes are interleaved (`i8x16.shuffle`), widened
 * (`i16x8.extend_*_i8x16_s`) and multiplied by their two weights at once
 * (`i32x4.dot_i16x8_s`). A query lists only its non-zero dimensions, so a
 * hashing query (a few dozen of 256) reads a few dozen columns, not every
 * row's every value. The module is assembled here from its instructions
 * (listed below with their text-format names), so no toolchain or binary file
 * is involved.
 *
 *   columns(values, rows, list, passes, out):
 *     for each pass (c0, c1, c2, c3, w01, w23) of list:
 *       for r in 0..rows: out[r] += values[c0 + r] * w0 + values[c1 + r] * w1
 *                                 + values[c2 + r] * w2 + values[c3 + r] * w3   (i32)
 *
 * `values`, `list` and `out` are byte offsets into the memory the module
 * imports; a column starts at `values + c` and holds `rows` int8 values;
 * `list` holds `passes` groups of eight int32: four column offsets, then the
 * weights of the first two and of the last two as int16 pairs (the first in
 * the low half; `packWeights`), then two unused; `out` holds `rows` int32
 * sums, added to (the caller zeroes them). `rows` is a positive multiple of
 * 16. A pass with fewer columns lists weight 0 for the rest.
 */
import { encodeUleb128 } from "../engine/leb128.ts";

/** Columns are padded to a multiple of this many rows. */
export const LANES = 16;
/** Columns added per pass over the sums. */
export const COLUMNS_PER_PASS = 4;
/** Int32 values a pass takes in the list. */
export const PASS_INTS = 8;

/** Two int16 weights as one int32 of the list: `first` in the low half. */
export function packWeights(first: number, second: number): number {
  return (second << 16) | (first & 0xffff);
}

const SIMD = 0xfd;
const op = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  i32Load: 0x28,
  i32Const: 0x41,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Shl: 0x74,
  void: 0x40,
  i32: 0x7f,
  v128: 0x7b,
};
/** SIMD opcodes (after the 0xfd prefix, as LEB128). */
const simd = {
  v128Load: [0x00],
  v128Store: [0x0b],
  i8x16Shuffle: [0x0d],
  i32x4Splat: [0x11],
  i16x8ExtendLowI8x16S: [0x87, 0x01],
  i16x8ExtendHighI8x16S: [0x88, 0x01],
  i32x4Add: [0xae, 0x01],
  i32x4DotI16x8S: [0xba, 0x01],
};
/** Lanes of `i8x16.shuffle` interleaving bytes 0-7 (low) or 8-15 (high) of two vectors. */
const INTERLEAVE_LOW = [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23];
const INTERLEAVE_HIGH = INTERLEAVE_LOW.map((lane) => lane + 8);

// Parameters 0-4; then i32 locals 5-11, v128 locals 12-19.
const [VALUES, ROWS, LIST, PASSES, OUT] = [0, 1, 2, 3, 4];
const [K, R, P] = [5, 6, 7];
const C = [8, 9, 10, 11];
const W = [12, 13];
const A = [14, 15, 16, 17];
const [LO, HI] = [18, 19];

const get = (local: number) => [op.localGet, local];
const set = (local: number) => [op.localSet, local];
/** `i32.const` of a value below 64 (one byte, the same in signed LEB128 as unsigned). */
const i32Const = (value: number) => {
  if (value < 0 || value >= 64) throw new RangeError(`i32.const ${value} needs signed LEB128`);
  return [op.i32Const, value];
};
/** `i32.load` (alignment hint 4 bytes) at a byte offset from the address on the stack. */
const i32Load = (offset: number) => [op.i32Load, 2, ...encodeUleb128(offset)];
/** `v128.load` / `v128.store` with alignment hint 1 byte and a byte offset. */
const v128Load = (offset: number) => [SIMD, ...simd.v128Load, 0, ...encodeUleb128(offset)];
const v128Store = (offset: number) => [SIMD, ...simd.v128Store, 0, ...encodeUleb128(offset)];
/** `acc += dot(extend(part), weight)`: four rows' two products each, added. */
const addDot = (acc: number, part: number, extend: number[], weight: number) => [
  ...get(acc),
  ...get(part),
  SIMD,
  ...extend,
  ...get(weight),
  SIMD,
  ...simd.i32x4DotI16x8S,
  SIMD,
  ...simd.i32x4Add,
  ...set(acc),
];

/** Adds columns `C[2j]` and `C[2j + 1]` at row r, weighted by `W[j]`, into the four sums. */
const addPair = (j: number) => [
  // lo = rows r..r+7 of both columns interleaved; hi = rows r+8..r+15
  ...get(C[2 * j]),
  ...get(R),
  op.i32Add,
  ...v128Load(0),
  ...get(C[2 * j + 1]),
  ...get(R),
  op.i32Add,
  ...v128Load(0),
  ...set(HI),
  ...set(LO),
  ...get(LO),
  ...get(HI),
  SIMD,
  ...simd.i8x16Shuffle,
  ...INTERLEAVE_HIGH,
  ...get(LO),
  ...get(HI),
  SIMD,
  ...simd.i8x16Shuffle,
  ...INTERLEAVE_LOW,
  ...set(LO),
  ...set(HI),
  ...addDot(A[0], LO, simd.i16x8ExtendLowI8x16S, W[j]),
  ...addDot(A[1], LO, simd.i16x8ExtendHighI8x16S, W[j]),
  ...addDot(A[2], HI, simd.i16x8ExtendLowI8x16S, W[j]),
  ...addDot(A[3], HI, simd.i16x8ExtendHighI8x16S, W[j]),
];

const BODY = [
  // locals: 7 × i32 (k, r, p, c0..c3), 8 × v128 (w01, w23, a0..a3, lo, hi)
  2,
  7,
  op.i32,
  8,
  op.v128,
  op.block,
  op.void,
  op.loop,
  op.void,
  // while (k < passes)
  ...get(K),
  ...get(PASSES),
  op.i32GeU,
  op.brIf,
  1,
  // c_j = values + list[j]; w01 = splat(list[4]); w23 = splat(list[5])
  ...[0, 1, 2, 3].flatMap((j) => [
    ...get(VALUES),
    ...get(LIST),
    ...i32Load(j * 4),
    op.i32Add,
    ...set(C[j]),
  ]),
  ...[0, 1].flatMap((j) => [
    ...get(LIST),
    ...i32Load(16 + j * 4),
    SIMD,
    ...simd.i32x4Splat,
    ...set(W[j]),
  ]),
  ...i32Const(0),
  ...set(R),
  op.block,
  op.void,
  op.loop,
  op.void,
  // while (r < rows)
  ...get(R),
  ...get(ROWS),
  op.i32GeU,
  op.brIf,
  1,
  // p = out + 4r; a_i = out[r + 4i .. r + 4i + 4]
  ...get(OUT),
  ...get(R),
  ...i32Const(2),
  op.i32Shl,
  op.i32Add,
  ...set(P),
  ...[0, 1, 2, 3].flatMap((i) => [...get(P), ...v128Load(16 * i), ...set(A[i])]),
  ...addPair(0),
  ...addPair(1),
  ...[0, 1, 2, 3].flatMap((i) => [...get(P), ...get(A[i]), ...v128Store(16 * i)]),
  // r += 16
  ...get(R),
  ...i32Const(16),
  op.i32Add,
  ...set(R),
  op.br,
  0,
  op.end,
  op.end,
  // list += one pass; k += 1
  ...get(LIST),
  ...i32Const(PASS_INTS * 4),
  op.i32Add,
  ...set(LIST),
  ...get(K),
  ...i32Const(1),
  op.i32Add,
  ...set(K),
  op.br,
  0,
  op.end,
  op.end,
  op.end,
];

function section(id: number, content: number[]): number[] {
  return [id, ...encodeUleb128(content.length), ...content];
}

function name(text: string): number[] {
  const bytes = [...new TextEncoder().encode(text)];
  return [...encodeUleb128(bytes.length), ...bytes];
}

/** The module's bytes; it imports `env.memory` (shared when `shared`, with `pages` as its maximum). */
function moduleBytes(shared: boolean, pages: number): Uint8Array {
  const limits = shared
    ? [0x03, ...encodeUleb128(0), ...encodeUleb128(pages)]
    : [0x00, ...encodeUleb128(0)];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    // type 0: (i32 × 5) → ()
    ...section(1, [1, 0x60, 5, op.i32, op.i32, op.i32, op.i32, op.i32, 0]),
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, ...limits]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name("columns"), 0x00, 0]),
    ...section(10, [1, ...encodeUleb128(BODY.length), ...BODY]),
  ]);
}

/** The scan function bound to a memory. */
export type ScoreFunction = (
  values: number,
  rows: number,
  list: number,
  passes: number,
  out: number,
) => void;

const compiled = new Map<string, WebAssembly.Module>();

/** The scan function over `memory` (a shared memory must declare `pages` as its maximum). */
export function scoreFunction(
  memory: WebAssembly.Memory,
  shared: boolean,
  pages: number,
): ScoreFunction {
  const key = shared ? `shared:${pages}` : "plain";
  let module = compiled.get(key);
  if (!module) {
    module = new WebAssembly.Module(moduleBytes(shared, pages) as BufferSource);
    compiled.set(key, module);
  }
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  return instance.exports.columns as ScoreFunction;
}
