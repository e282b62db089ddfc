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
import { type ParsePlan, rangedInput, unitPlan } from "../src/grep/plan.ts";
import { statementUnits } from "../src/indexer/statement_units.ts";
import { unitTableOf } from "../src/store/packing.ts";
import { LexicalCheck, lexPython } from "../src/grep/lexical.ts";

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
      const expected = keys(full, compiled, null, undefined);
      assert.ok(expected.length > 0, `${source} matches in the fixture`);
      const plan = unitPlan(compiled, SOURCE, unitTableOf(units), parser.language!);
      const parsed = plan.ranges.reduce((sum, range) => sum + range.endIndex - range.startIndex, 0);
      assert.ok(parsed < SOURCE.length, `${source}: parses less than the file (${parsed})`);
      const tree = parser.parse(rangedInput(SOURCE, plan.ranges), null, {
        includedRanges: plan.ranges,
      })!;
      try {
        assert.ok(!tree.rootNode.hasError, `${source}: the planned parse is clean`);
        assert.deepEqual(keys(tree, compiled, plan, SOURCE), expected, source);
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
  plan: ParsePlan | null,
  text: string | undefined,
): string[] {
  const anchorRanges = plan?.anchorsInRanges ? plan.ranges : undefined;
  return findMatches(tree, compiled, { language: python, limit: 1000, text, anchorRanges })
    .matches
    .filter((match) => !plan?.fillers.has(match.node.startIndex))
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

/** Code where the token check (`grep/lexical.ts`) must keep every match and may drop the rest. */
const TOKENS_SOURCE = `import os

class Checks(Base):
${PAD}
    def same(self, a, b):
        if isinstance(a, b):
            return isinstance(a, a,)
        check = isinstance(  # a comment inside
            a, a)
        other = isinstance(a, \\
            a)
        both = isinstance((a, b), (a, b)) and isinstance(a[1:2], a[1:2])
        quoted = isinstance("s", 's') or isinstance(f"{a}", f"{ a }")
        formatted = f"{isinstance(b, b)} and {isinstance(a, b)}"
        nested = isinstance(isinstance(a, a), isinstance(a, a))
        spaced = isinstance(a . b, a.b) or isinstance(a.b, a.c)
${PAD}
        return isinstance(a, b)

    def functions(self):
        plain = lambda: 0
        longer = lambda x: x + 1
        same = lambda x: x
        defaults = lambda x=(1, 2): x
        star = lambda *args: args
        pair = lambda x, y: y, x
        table = {1: lambda y: y, 2: lambda y: y.real, 3: lambda z: (z)}
        text = "lambda q: q"  # lambda r: r
        doc = """lambda a: a + 1, lambda b: b"""
${PAD}
        return sorted(self, key=lambda k: k)

values = [lambda v: v, lambda v: -v]
`;

Deno.test("the token check keeps every match of a plan and leaves most other pieces out", async () => {
  const parser = await parserFor(python);
  const full = parser.parse(TOKENS_SOURCE)!;
  const units = unitTableOf(statementUnits(full.rootNode, TOKENS_SOURCE));
  try {
    for (
      const source of [
        "isinstance($A, $A)",
        "isinstance($A, $B)",
        "lambda $X: $X",
        "lambda $$X: $X",
        "isinstance($_, $A)",
        "isinstance($A.b, $A.b)",
        "sorted($A, key=$K)",
      ]
    ) {
      const compiled = compilePattern(source, { language: python, parser });
      assert.ok(LexicalCheck.of(compiled, parser.language!), `${source}: the check applies`);
      const expected = keys(full, compiled, null, undefined);
      const plan = unitPlan(compiled, TOKENS_SOURCE, units, parser.language!);
      const tree = parser.parse(rangedInput(TOKENS_SOURCE, plan.ranges), null, {
        includedRanges: plan.ranges,
      })!;
      try {
        assert.ok(!tree.rootNode.hasError, `${source}: the planned parse is clean`);
        assert.deepEqual(keys(tree, compiled, plan, TOKENS_SOURCE), expected, source);
      } finally {
        tree.delete();
      }
    }
    // Pieces with the literals but no match are left out: `isinstance(a, b)` and `lambda x: x + 1`.
    const parsedText = (source: string) => {
      const compiled = compilePattern(source, { language: python, parser });
      const plan = unitPlan(compiled, TOKENS_SOURCE, units, parser.language!);
      return plan.ranges.map((range) => TOKENS_SOURCE.slice(range.startIndex, range.endIndex))
        .join("");
    };
    const same = parsedText("isinstance($A, $A)");
    assert.ok(!same.includes("return isinstance(a, b)"), same);
    assert.ok(!same.includes("other = "), same);
    assert.ok(same.includes("isinstance(b, b)"), "an f-string's code is never left out");
    const lambdas = parsedText("lambda $X: $X");
    assert.ok(!lambdas.includes("lambda: 0"), lambdas);
    assert.ok(!lambdas.includes("lambda *args"), lambdas);
    assert.ok(!lambdas.includes("lambda x, y"), lambdas);
    assert.ok(!lambdas.includes("text = "), "code in strings and comments is no anchor");
    assert.ok(!lambdas.includes("doc = "), "nor a second occurrence in the same string");
    assert.ok(lambdas.includes("lambda x: x\n"), lambdas);
  } finally {
    full.delete();
  }
});

Deno.test("the token check: Python tokens, and patterns it does not read", async () => {
  const text = `a = r"x\\"y" + f'{b}' # c(\nd(e[1:-2.5e-3j], **f) \\\n.g`;
  const tokens = lexPython(text, 0, text.length);
  const spelled = Array.from(
    { length: tokens.count },
    (_, i) => text.slice(tokens.starts[i], tokens.ends[i]),
  );
  assert.deepEqual(spelled, [
    "a",
    "=",
    `r"x\\"y"`,
    "+",
    "f'{b}'",
    "d",
    "(",
    "e",
    "[",
    "1",
    ":",
    "-",
    "2.5e-3j",
    "]",
    ",",
    "**",
    "f",
    ")",
    "\\\n",
    ".",
    "g",
  ]);
  assert.equal(tokens.partners[6], 17);
  // Escaped quotes and backslashes; a one-line string continued by a backslash (CRLF too).
  const strings = `s = "a\\\\" + 'b\\'c' + "d\\\r\ne" + """f\\""" g"""`;
  const lexed = lexPython(strings, 0, strings.length);
  assert.deepEqual(
    Array.from({ length: lexed.count }, (_, i) => strings.slice(lexed.starts[i], lexed.ends[i])),
    ["s", "=", `"a\\\\"`, "+", `'b\\'c'`, "+", `"d\\\r\ne"`, "+", `"""f\\""" g"""`],
  );
  assert.equal(tokens.partners[8], 13);
  const parser = await parserFor(python);
  const check = (source: string) =>
    LexicalCheck.of(compilePattern(source, { language: python, parser }), parser.language!);
  assert.equal(check("$A.b"), null, "a first leaf that is a metavariable");
  assert.equal(check("f($$$A)"), null, "a list metavariable");
  assert.equal(check("if $A: return $B"), null, "a block");
  assert.equal(check('f("a")'), null, "a string");
});
