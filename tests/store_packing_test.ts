/** The packed forms a target stores: relations, statement ranges, text, vectors, chunk coverage. */
import assert from "node:assert/strict";
import { codeTerms, tokenParts } from "../src/engine/tokenizer.ts";
import { hashVector, quantizedBytes, readQuantized, termCounts } from "../src/engine/vector.ts";
import { chunksCoverText } from "../src/indexer/file_rows.ts";
import {
  ByteReader,
  ByteWriter,
  packText,
  packUnits,
  unitTableOf,
  unpackText,
  unpackUnits,
  unpackUnitTable,
} from "../src/store/packing.ts";
import { packedTargets, packRelations, unpackRelations } from "../src/store/relation_pack.ts";
import type { ChunkRow } from "../src/store/records.ts";
import { randomRelations, seededRandom as random } from "./_random.ts";

const VOCABULARY = {
  names: ["foo", "Bar", "self", "os.path", "日本語", "x", "a".repeat(300), "σφ"],
  kinds: ["calls", "references", "imports", "inherits", "reads", "writes", "type_of"],
  owners: ["0011aabbccddeeff", "ffeeddccbbaa1100"],
  noReceiver: 0.7,
};

Deno.test("packed relations read back exactly, in order; a filter sees each row's strings", () => {
  const next = random(12);
  for (const count of [0, 1, 7, 600]) {
    const rows = randomRelations(next, count, VOCABULARY);
    const packed = packRelations(rows);
    assert.equal(packed.count, count);
    assert.deepEqual(unpackRelations(packed.data), rows);
    assert.deepEqual(new Set(packed.targets), new Set(rows.map((row) => row.target)));
    assert.deepEqual(new Set(packedTargets(packed.data)), new Set(packed.targets));
    const calls = unpackRelations(packed.data, (row) => row.kind === "calls");
    assert.deepEqual(calls, rows.filter((row) => row.kind === "calls"));
    const owned = unpackRelations(packed.data, (row) => row.fromSymbol === "0011aabbccddeeff");
    assert.deepEqual(owned, rows.filter((row) => row.from_symbol === "0011aabbccddeeff"));
  }
  // About eight bytes a row: the string table is shared by the rows of the file.
  const many = packRelations(randomRelations(random(3), 5000, VOCABULARY));
  assert.ok(many.data.length < 5000 * 10, `${many.data.length} bytes`);
  assert.throws(() => unpackRelations(new Uint8Array([9])), RangeError);
});

Deno.test("statement units and text read back exactly", () => {
  const at = { startColumn: 0, endColumn: 0 };
  const units = [
    { startIndex: 0, endIndex: 10, startRow: 0, endRow: 1, ...at, parent: -1, block: 0, kind: 7 },
    { startIndex: 10, endIndex: 400, startRow: 1, startColumn: 4, endRow: 30, endColumn: 12 },
    { startIndex: 30, endIndex: 200, startRow: 2, endRow: 9, ...at, parent: 1, block: 0, kind: 9 },
    { startIndex: 60, endIndex: 90, startRow: 3, endRow: 4, ...at, parent: 2, block: 0, kind: 0 },
    {
      startIndex: 220,
      endIndex: 300,
      startRow: 11,
      endRow: 15,
      ...at,
      parent: 1,
      block: 2,
      kind: 300,
    },
    { startIndex: 500, endIndex: 501, startRow: 40, endRow: 40, startColumn: 0, endColumn: 1 },
  ].map((unit) => ({ parent: -1, block: 0, kind: 1, ...unit }));
  assert.deepEqual(unpackUnits(packUnits(units)), units);
  assert.deepEqual(unpackUnits(packUnits([])), []);
  // Grep's plans read the same units as columns.
  assert.deepEqual(unpackUnitTable(packUnits(units)), unitTableOf(units));
  assert.equal(unpackUnitTable(packUnits(units)).parent[3], 2);
  assert.equal(unpackUnitTable(packUnits([])).count, 0);
  for (const text of ["", "x = 1\n", "naïve 日本語 🎉\r\n".repeat(1000)]) {
    const packed = packText(text);
    assert.equal(unpackText(packed), text);
    // A size hint, right or wrong, sizes the output only.
    const bytes = new TextEncoder().encode(text).length;
    for (const hint of [bytes, 0, bytes + 5000]) assert.equal(unpackText(packed, hint), text);
  }
  assert.ok(packText("abc\n".repeat(10_000)).length < 1000, "text is compressed");
});

Deno.test("stored vectors are int8 with a scale: the in-memory index's own quantisation", () => {
  const vector = hashVector(termCounts("parseconfigfile parse config file retry"));
  const { scale, values } = readQuantized(quantizedBytes(vector));
  assert.equal(values.length, vector.length);
  const max = Math.max(...vector.map(Math.abs));
  assert.ok(Math.abs(scale - max / 127) < 1e-6);
  for (let i = 0; i < vector.length; i++) {
    assert.equal(values[i], Math.round(vector[i] * (127 / max)));
    assert.ok(Math.abs(values[i] * scale - vector[i]) <= scale / 2 + 1e-6);
  }
  const zero = readQuantized(quantizedBytes(new Float32Array(8)));
  assert.equal(zero.scale, 0);
  assert.deepEqual([...zero.values], new Array(8).fill(0));
});

Deno.test("a token's parts are terms of any text that holds it as a token (grep's prefilter)", () => {
  const next = random(5);
  const pick = <T>(values: T[]) => values[Math.floor(next() * values.length)];
  const tokens = [
    "parseConfigFile",
    "parse_config_file",
    "HTTPServer2Go",
    "__init__",
    "_private",
    "MAX_SIZE",
    "x",
    "x1",
    "42",
    "3.14",
    "naïveÉtat",
    "straße",
    "ΣΑΣ",
    "日本語",
    "getX",
    "a$b",
    "$",
    "raise",
    "NotImplementedError",
  ];
  // What may sit between two tokens in code (a `$` is PHP's variable sigil).
  const between = [" ", ".", "::", "-", "(", ")", ", ", '"', "'", "\n", "->", "$", " = ", "["];
  for (let round = 0; round < 2000; round++) {
    const used = Array.from({ length: 2 + Math.floor(next() * 5) }, () => pick(tokens));
    const text = used.map((token) => token + pick(between)).join("");
    const terms = new Set(codeTerms(text));
    for (const token of used) {
      for (const part of tokenParts(token)) {
        assert.ok(terms.has(part), `${JSON.stringify(text)}: ${token} → ${part} not indexed`);
      }
    }
  }
});

Deno.test("chunk terms cover a text unless a byte outside the chunks or a cut word says otherwise", () => {
  const bytes = new TextEncoder().encode("def a():\n    pass\n\n\nclass B:\n    x = 1\n");
  const chunk = (start: number, end: number): ChunkRow => ({
    chunk_key: "k",
    start_line: 1,
    end_line: 1,
    start_byte: start,
    end_byte: end,
    kind: "block",
    symbol_path: null,
    content_hash: "h",
    terms: "",
  });
  assert.ok(chunksCoverText(bytes, [chunk(0, 17), chunk(20, 38)]));
  assert.ok(chunksCoverText(bytes, [chunk(20, 38), chunk(0, 17)]), "in any order");
  assert.ok(chunksCoverText(bytes, [chunk(0, 38), chunk(5, 12)]), "overlapping windows");
  assert.ok(!chunksCoverText(bytes, [chunk(0, 17)]), "a line outside every chunk");
  assert.ok(!chunksCoverText(bytes, [chunk(0, 15), chunk(15, 38)]), "a cut inside `pass`");
  assert.ok(!chunksCoverText(bytes, [chunk(0, 2), chunk(2, 38)]), "a cut inside `def`");
  assert.ok(chunksCoverText(new Uint8Array(), []));
  assert.ok(!chunksCoverText(new TextEncoder().encode("x"), []));
});

Deno.test("a written string is its UTF-8 byte length and bytes, ASCII or not", () => {
  const encoder = new TextEncoder();
  const values = [
    "",
    "a",
    "sympy.core.basic.Basic",
    "x".repeat(200), // a length of two varint bytes
    "größe",
    "данные.x",
    "emoji 😀 end",
    "lone \ud800 surrogate",
    "ascii then é",
  ];
  for (const value of values) {
    const writer = new ByteWriter();
    writer.string(value);
    const bytes = encoder.encode(value);
    const expected = new ByteWriter();
    expected.uint(bytes.length);
    expected.bytes(bytes);
    assert.deepEqual(writer.finish(), expected.finish(), JSON.stringify(value));
    assert.equal(new ByteReader(writer.finish()).string(), new TextDecoder().decode(bytes));
  }
});
