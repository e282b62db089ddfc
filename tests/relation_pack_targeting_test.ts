/**
 * Reading the packed relations of a file that name some targets: the same rows, in the same
 * order, as unpacking every row and filtering on the target, whatever the names' bytes.
 */
import assert from "node:assert/strict";
import {
  packRelations,
  unpackRelations,
  unpackRelationsFrom,
  unpackRelationsOfKind,
  unpackRelationsTargeting,
} from "../src/store/relation_pack.ts";
import { randomRelations, seededRandom as random } from "./_random.ts";

/** Names of equal byte lengths (`foo`/`Bar`, `σφ`/`ab`/`xy`), multi-byte, long, dotted. */
const NAMES = ["foo", "Bar", "σφ", "ab", "xy", "日本語", "os.path", "a".repeat(300), "x", "fob"];

/** Owners change from row to row or stay (a run of rows of one symbol). */
const VOCABULARY = {
  names: NAMES,
  kinds: ["calls", "references", "imports", "inherits"],
  owners: ["0011aabbccddeeff", "ffeeddccbbaa1100", "0011aabbccddeefe"],
  noReceiver: 0.6,
};

Deno.test("rows naming some targets read back as a filtered full unpack reads them", () => {
  const next = random(5);
  const wantedSets = [
    ["foo"],
    ["Bar"],
    ["σφ"],
    ["ab", "xy"],
    ["日本語", "os.path"],
    ["a".repeat(300)],
    ["absent"],
    ["fo"],
    [],
  ];
  for (const count of [0, 1, 9, 800]) {
    const rows = randomRelations(next, count, VOCABULARY);
    const { data } = packRelations(rows);
    for (const names of wantedSets) {
      const wanted = new Set(names);
      const expected = unpackRelations(data, (row) => wanted.has(row.target));
      assert.deepEqual(unpackRelationsTargeting(data, wanted), expected, names.join(","));
      assert.deepEqual(expected, rows.filter((row) => wanted.has(row.target)));
      // A further filter sees the row's own strings.
      const imports = unpackRelationsTargeting(data, wanted, (row) => row.kind === "imports");
      assert.deepEqual(imports, expected.filter((row) => row.kind === "imports"));
      const owned = unpackRelationsTargeting(
        data,
        wanted,
        (row) => row.fromSymbol === "ffeeddccbbaa1100",
      );
      assert.deepEqual(owned, expected.filter((row) => row.from_symbol === "ffeeddccbbaa1100"));
    }
  }
});

Deno.test("the rows written inside one symbol read back as a filtered full unpack reads them", () => {
  const next = random(7);
  for (const count of [0, 1, 9, 800]) {
    const { data } = packRelations(randomRelations(next, count, VOCABULARY));
    for (const owner of ["0011aabbccddeeff", "ffeeddccbbaa1100", "0011aabbccddeefe", "none"]) {
      assert.deepEqual(
        unpackRelationsFrom(data, owner),
        unpackRelations(data, (row) => row.fromSymbol === owner),
        owner,
      );
    }
  }
});

Deno.test("the rows of one kind read back as a filtered full unpack reads them", () => {
  const next = random(11);
  for (const count of [0, 1, 9, 800]) {
    const { data } = packRelations(randomRelations(next, count, VOCABULARY));
    for (const kind of ["imports", "calls", "inherits", "reads"]) {
      assert.deepEqual(
        unpackRelationsOfKind(data, kind),
        unpackRelations(data, (row) => row.kind === kind),
        kind,
      );
    }
  }
});

Deno.test("a cut or foreign packed value is refused, not misread", () => {
  const { data } = packRelations(randomRelations(random(9), 50, VOCABULARY));
  assert.throws(() => unpackRelationsTargeting(new Uint8Array([9]), new Set(["foo"])), RangeError);
  assert.throws(
    () => unpackRelationsTargeting(data.subarray(0, data.length - 3), new Set(NAMES)),
    RangeError,
  );
});
