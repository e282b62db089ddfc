/**
 * Statement units (`src/indexer/statement_units.ts`) and grep's parse plans
 * (`src/grep/plan.ts`): a planned parse finds exactly the matches a parse of
 * the whole file finds, in the same order, while parsing less of it.
 */
import assert from "node:assert/strict";
import type { Tree } from "web-tree-sitter";
import { grepLanguageNamed } from "../src/grep/languages.ts";
import { findMatches } from "../src/grep/matcher.ts";
import { parserFor } from "../src/grep/parsers.ts";
import { compilePattern } from "../src/grep/pattern.ts";
import { rangedInput, unitPlan } from "../src/grep/plan.ts";
import { statementUnits } from "../src/indexer/statement_units.ts";

const python = grepLanguageNamed("python")!;

/** Long enough that every compound statement is split (units from 128 characters). */
const PAD = "    # " + "-".repeat(130) + "\n";

const SOURCE = `import os


class Shape(Base):
    """A shape."""
${PAD}
    @cacheit
    def area(self, other=isinstance(os, os)):
        if isinstance(self, self):
            return 1
        elif isinstance(other, Shape):
            total = sum(map(lambda x: x, other))
        else:
            try:
                value = _sympify(other)
            except SympifyError:
                return isinstance(value, value)  # a trailing comment
            other.add(value)  # fails if object defines __eq__ but
                              # doesn't define __hash__
        for item in self.items:  #
            if item in other:        # <--- here, too
                return isinstance(item, item)
${PAD}
        return lambda y: y

    def one_line(self): return isinstance(self, self)

    def packed(self):
        x = isinstance(self, self); y = lambda z: z
        return x, y

    def docstring_only(self):
        """Only a docstring."""
${PAD}

    def matcher(self, value):
        match value:
            case [a, b]:
                return isinstance(a, a)
            case _:
                return lambda w: w
${PAD}

@cacheit
def free(a):
    def inner(b):
        return isinstance(b, b)
${PAD}
    return inner
`;

const PATTERNS = [
  "isinstance($A, $A)",
  "lambda $X: $X",
  "return $X",
  "if $A: $$$B",
  "def $F($$$A): $$$B",
  "@cacheit\ndef $F($$$A): $$$B",
  "class $C($$$B): $$$D",
  "try:\n    $$$A\nexcept SympifyError:\n    $$$B",
  "$A.add($B)",
  "for $X in $Y: $$$B",
];

Deno.test("statement units: top-level statements, then the statements of large blocks", async () => {
  const parser = await parserFor(python);
  const tree = parser.parse(SOURCE)!;
  try {
    const units = statementUnits(tree.rootNode, SOURCE);
    const top = units.filter((unit) => unit.parent < 0);
    assert.deepEqual(
      top.map((unit) => SOURCE.slice(unit.startIndex, unit.endIndex).split("\n")[0]),
      ["import os", "class Shape(Base):", "@cacheit"],
    );
    const text = (i: number) => SOURCE.slice(units[i].startIndex, units[i].endIndex);
    const area = units.findIndex((_, i) =>
      text(i).trimStart().startsWith("@cacheit\n    def area")
    );
    assert.ok(area > 0, "a decorated method is a unit");
    const ifUnit = units.findIndex((unit) => unit.parent === area);
    assert.ok(text(ifUnit).trimStart().startsWith("if isinstance(self, self)"));
    // The branches of the `if` are blocks 0, 1 and 2 of its unit.
    const branches = units.filter((unit) => unit.parent === ifUnit).map((unit) => unit.block);
    assert.deepEqual([...new Set(branches)], [0, 1, 2]);
    // Statements sharing a line, and a body on its header's line, are not split.
    assert.ok(!units.some((_, i) => text(i).trimStart().startsWith("x = isinstance")));
    assert.ok(!units.some((_, i) => text(i).trimStart().startsWith("return isinstance(self")));
    // A `match` block holds clauses, not statements: its cases stay in their unit's text.
    assert.ok(!units.some((_, i) => text(i).trimStart().startsWith("case")));
    // Every unit covers whole lines (but the last one may end the text without a newline).
    for (const unit of units) {
      assert.ok(unit.startIndex === 0 || SOURCE[unit.startIndex - 1] === "\n");
      assert.equal(SOURCE[unit.endIndex - 1], "\n");
    }
  } finally {
    tree.delete();
  }
});

Deno.test("a planned parse finds what the whole file's parse finds, parsing less", async () => {
  const parser = await parserFor(python);
  const full = parser.parse(SOURCE)!;
  const units = statementUnits(full.rootNode, SOURCE);
  try {
    let nested = 0;
    for (const source of PATTERNS) {
      const compiled = compilePattern(source, { language: python, parser });
      const expected = keys(full, compiled, new Set(), undefined);
      assert.ok(expected.length > 0, `${source} matches in the fixture`);
      const plan = unitPlan(compiled, SOURCE, units, parser.language!);
      const parsed = plan.ranges.reduce((sum, range) => sum + range.endIndex - range.startIndex, 0);
      assert.ok(parsed < SOURCE.length, `${source}: parses less than the file (${parsed})`);
      const tree = parser.parse(rangedInput(SOURCE, plan.ranges), null, {
        includedRanges: plan.ranges,
      })!;
      try {
        assert.ok(!tree.rootNode.hasError, `${source}: the planned parse is clean`);
        assert.deepEqual(keys(tree, compiled, plan.fillers, SOURCE), expected, source);
      } finally {
        tree.delete();
      }
      if (plan.nested) nested++;
    }
    assert.ok(nested >= PATTERNS.length - 1, `${nested} plans went below the top level`);
  } finally {
    full.delete();
  }
});

function keys(
  tree: Tree,
  compiled: ReturnType<typeof compilePattern>,
  fillers: Set<number>,
  text: string | undefined,
): string[] {
  return findMatches(tree, compiled, { language: python, limit: 1000, text }).matches
    .filter((match) => !fillers.has(match.node.startIndex))
    .map((match) =>
      `${match.node.startIndex}-${match.node.endIndex} ${
        [...match.bindings].map(([name, binding]) =>
          `${name}=${
            (binding.kind === "single" ? [binding.node] : binding.nodes).map((node) => node.text)
          }`
        )
      }`
    );
}
