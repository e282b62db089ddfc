/** Unsigned LEB128, the variable-length integers of the WebAssembly binary format. */

/** The bytes of `value` (an unsigned 32-bit integer). */
export function encodeUleb128(value: number): number[] {
  const out: number[] = [];
  let rest = value >>> 0;
  do {
    let byte = rest & 0x7f;
    rest >>>= 7;
    if (rest !== 0) byte |= 0x80;
    out.push(byte);
  } while (rest !== 0);
  return out;
}

/** The value encoded at `at` in `bytes`, and the offset just past it. */
export function decodeUleb128(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  let pos = at;
  for (;;) {
    const byte = bytes[pos++];
    value |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value >>> 0, pos];
    shift += 7;
  }
}
