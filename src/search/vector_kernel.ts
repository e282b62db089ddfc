/**
 * The vector scan's inner loop as a tiny WebAssembly SIMD function: the dot
 * product of every int8 row with an int16 query, sixteen dimensions per step
 * (`i16x8.extend_*_i8x16_s` then `i32x4.dot_i16x8_s`), about ten times faster
 * than the same loop in JavaScript. The module is assembled here from its
 * instructions (listed below with their text-format names), so no toolchain
 * or binary file is involved.
 *
 *   scores(values, rows, stride, query, out):
 *     for r in 0..rows: out[r] = Σ_d values[r*stride + d] * query[d]   (i32)
 *
 * `values` (int8, `stride` bytes a row), `query` (int16, `stride` of them) and
 * `out` (i32, one a row) are byte offsets into the memory the module imports;
 * `stride` is a positive multiple of 16.
 */
import { encodeUleb128 } from "../engine/leb128.ts";

/** Rows are padded to a multiple of this many dimensions. */
export const LANES = 16;

const SIMD = 0xfd;
const op = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Store: 0x36,
  i32Const: 0x41,
  i32LtU: 0x49,
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
  v128Const: [0x0c],
  i32x4ExtractLane: [0x1b],
  i16x8ExtendLowI8x16S: [0x87, 0x01],
  i16x8ExtendHighI8x16S: [0x88, 0x01],
  i32x4Add: [0xae, 0x01],
  i32x4DotI16x8S: [0xba, 0x01],
};

// Locals: 0 values, 1 rows, 2 stride, 3 query, 4 out (parameters); 5 r, 6 d; 7 acc, 8 v.
const [VALUES, ROWS, STRIDE, QUERY, OUT, R, D, ACC, V] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const get = (local: number) => [op.localGet, local];
const set = (local: number) => [op.localSet, local];
/** `v128.load` with alignment hint 0 and a byte offset. */
const load = (offset: number) => [SIMD, ...simd.v128Load, 0x00, offset];
/** The query's int16 lanes for dimensions d..d+7 (byte offset 2d, plus `offset`). */
const queryAt = (offset: number) => [
  ...get(QUERY),
  ...get(D),
  op.i32Const,
  1,
  op.i32Shl,
  op.i32Add,
  ...load(offset),
];
const lane = (n: number) => [...get(ACC), SIMD, ...simd.i32x4ExtractLane, n];

const BODY = [
  // locals: 2 × i32 (r, d), 2 × v128 (acc, v)
  2,
  2,
  op.i32,
  2,
  op.v128,
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
  // acc = 0; d = 0
  SIMD,
  ...simd.v128Const,
  ...new Array(16).fill(0),
  ...set(ACC),
  op.i32Const,
  0,
  ...set(D),
  op.loop,
  op.void,
  // v = values[d .. d+16]
  ...get(VALUES),
  ...get(D),
  op.i32Add,
  ...load(0),
  ...set(V),
  // acc += dot(extend_low(v), query[d .. d+8]) + dot(extend_high(v), query[d+8 .. d+16])
  ...get(ACC),
  ...get(V),
  SIMD,
  ...simd.i16x8ExtendLowI8x16S,
  ...queryAt(0),
  SIMD,
  ...simd.i32x4DotI16x8S,
  SIMD,
  ...simd.i32x4Add,
  ...get(V),
  SIMD,
  ...simd.i16x8ExtendHighI8x16S,
  ...queryAt(16),
  SIMD,
  ...simd.i32x4DotI16x8S,
  SIMD,
  ...simd.i32x4Add,
  ...set(ACC),
  // d += 16, again while d < stride
  ...get(D),
  op.i32Const,
  16,
  op.i32Add,
  op.localTee,
  D,
  ...get(STRIDE),
  op.i32LtU,
  op.brIf,
  0,
  op.end,
  // out[r] = acc lanes summed
  ...get(OUT),
  ...get(R),
  op.i32Const,
  2,
  op.i32Shl,
  op.i32Add,
  ...lane(0),
  ...lane(1),
  op.i32Add,
  ...lane(2),
  op.i32Add,
  ...lane(3),
  op.i32Add,
  op.i32Store,
  2,
  0,
  // values += stride; r += 1
  ...get(VALUES),
  ...get(STRIDE),
  op.i32Add,
  ...set(VALUES),
  ...get(R),
  op.i32Const,
  1,
  op.i32Add,
  ...set(R),
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
    ...section(7, [1, ...name("scores"), 0x00, 0]),
    ...section(10, [1, ...encodeUleb128(BODY.length), ...BODY]),
  ]);
}

/** The scan function bound to a memory. */
export type ScoreFunction = (
  values: number,
  rows: number,
  stride: number,
  query: number,
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
  return instance.exports.scores as ScoreFunction;
}
