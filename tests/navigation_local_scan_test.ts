/**
 * The shortcuts of the local-variable scan agree with the scan itself: a file
 * `mayBindLocally` rules out binds the name in none of its functions, and
 * bracket depths kept across the names and uses of one function give what a
 * fresh scan gives.
 */
import nodeAssert from "node:assert/strict";
import {
  type BodyDepths,
  keptPatternNames,
  localBinding,
  mayBindLocally,
  PATTERN_CACHE_SIZE,
} from "../src/resolver/receiver.ts";

const PYTHON = `import os
from lib import helper, Matrix


def compute(values, scale=2, *rest, **options):
    total = 0
    for item, weight in zip(values, rest):
        total += helper(item) * weight
    result = Matrix(
        rows=total,
        cols=scale,
    )
    with open(os.path.join("a", "b")) as handle:
        text = handle.read()
    (first, second) = text.split(",", 1)
    if (found := options.get("key")):
        return found
    return result, first, second


def other():
    return helper(Matrix)
`;

const GO = `package main

func compute(values []int, scale int) int {
	total := 0
	var result int
	for i, v := range values {
		total, result = total+v*scale, i
	}
	helper := func(x int) int { return x }
	return helper(total) + result
}

func other() int {
	return compute(nil, 1)
}
`;

function functionStarts(lines: string[]): number[] {
  return lines.flatMap((line, i) => /^(def |func )/.test(line) ? [i] : []);
}

for (const [style, text] of [["python", PYTHON], ["go", GO]] as const) {
  Deno.test(`${style}: the file-level check and kept depths agree with a fresh scan`, () => {
    const lines = text.split("\n");
    const names = [...new Set(text.match(/[A-Za-z_]\w*/g) ?? [])];
    let bound = 0;
    let ruledOut = 0;
    for (const name of names) {
      const may = mayBindLocally(style, text, name);
      for (const start of functionStarts(lines)) {
        const depths: BodyDepths = { start: -1, depths: [] };
        // Uses asked in no particular order (last line first), sharing one function's depths.
        for (let use = lines.length - 1; use >= start; use--) {
          const slice = lines.slice(start, use + 1);
          const fresh = localBinding({ style, lines: slice, name, useLineOffset: use - start });
          const kept = localBinding({
            style,
            lines: slice,
            name,
            useLineOffset: use - start,
            depths,
          });
          nodeAssert.deepStrictEqual(kept, fresh, `${name} at ${use}`);
          if (fresh) bound++;
          if (!may) {
            ruledOut++;
            nodeAssert.equal(fresh, null, `${name} is ruled out but binds at ${use}`);
          }
        }
      }
    }
    // The check rules names out, and the scan finds bindings: neither side is vacuous.
    nodeAssert.ok(bound > 0 && ruledOut > 0);
  });
}

Deno.test("mayBindLocally: a parameter, an assignment, a loop target and an alias each count", () => {
  for (const name of ["values", "scale", "rest", "options", "total", "item", "handle", "found"]) {
    nodeAssert.ok(mayBindLocally("python", PYTHON, name), name);
  }
  for (const name of ["helper", "zip", "os", "join"]) {
    nodeAssert.ok(!mayBindLocally("python", PYTHON, name), name);
  }
  nodeAssert.ok(mayBindLocally("ecmascript", "const x = 1;", "y"));
});

Deno.test("binding patterns: a few names' are kept, the ones used last, and answers do not change", () => {
  // Thousands of distinct names (a long-lived query Worker resolves that many and more): the
  // compiled patterns kept stay bounded (each holds its machine code), and a name asked again
  // after its patterns were dropped is answered as before.
  const text = "def f(values, scale):\n    total = 0\n    return total\n";
  const before = ["values", "scale", "total", "zip"].map((name) =>
    mayBindLocally("python", text, name)
  );
  for (let i = 0; i < PATTERN_CACHE_SIZE * 3; i++) mayBindLocally("python", text, `name_${i}`);
  nodeAssert.ok(keptPatternNames() <= PATTERN_CACHE_SIZE, `${keptPatternNames()} kept`);
  nodeAssert.ok(PATTERN_CACHE_SIZE <= 5_000, "a bound small enough to matter");
  nodeAssert.deepStrictEqual(
    ["values", "scale", "total", "zip"].map((name) => mayBindLocally("python", text, name)),
    before,
  );
  nodeAssert.deepStrictEqual(before, [true, true, true, false]);
});
