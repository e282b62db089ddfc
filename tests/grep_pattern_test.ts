/** Unit tests of the pure parts of structural grep: pattern spelling, compilation, prefilter. */
import assert from "node:assert/strict";
import { grepLanguageForPath, grepLanguageNamed } from "../src/grep/languages.ts";
import { findMatches } from "../src/grep/matcher.ts";
import { parserFor } from "../src/grep/parsers.ts";
import {
  compilePattern,
  InvalidPatternError,
  metaVariableOf,
  rewritePattern,
} from "../src/grep/pattern.ts";
import { containsInOrder, requiredPhrases, requiredTerms } from "../src/grep/prefilter.ts";
import { pythonStatementRanges } from "../src/grep/python_statements.ts";

async function compile(language: string, pattern: string) {
  const entry = grepLanguageNamed(language)!;
  return compilePattern(pattern, { language: entry, parser: await parserFor(entry) });
}

async function matchTexts(language: string, pattern: string, code: string): Promise<string[]> {
  const entry = grepLanguageNamed(language)!;
  const parser = await parserFor(entry);
  const compiled = compilePattern(pattern, { language: entry, parser });
  const tree = parser.parse(code)!;
  try {
    return findMatches(tree, compiled, { language: entry, limit: 100 }).matches.map((m) =>
      m.node.text
    );
  } finally {
    tree.delete();
  }
}

Deno.test("metavariables are spelled with the language's meta character; seed aliases too", () => {
  assert.equal(rewritePattern("f($A, $$$REST, $_)", "µ").text, "f(µA, µµµREST, µ_)");
  assert.equal(rewritePattern("f($A)", "$").text, "f($A)");
  const seed = rewritePattern("f(\\X, \\(ARGS*\\))", "µ");
  assert.equal(seed.text, "f(µX, µµµARGS)");
  // Each rewritten character points back into the pattern as written.
  assert.equal(seed.origin[seed.text.indexOf("µµµ")], "f(\\X, ".length);
  assert.equal(seed.origin[seed.text.length], "f(\\X, \\(ARGS*\\))".length);
  // Lower-case names and template substitutions are not metavariables.
  assert.equal(rewritePattern("`${a}` + $lower", "µ").text, "`${a}` + $lower");
});

Deno.test("metaVariableOf reads ast-grep's forms", () => {
  assert.deepEqual(metaVariableOf("$A", "$"), { kind: "capture", name: "A", named: true });
  assert.deepEqual(metaVariableOf("$$B2", "$"), { kind: "capture", name: "B2", named: false });
  assert.deepEqual(metaVariableOf("$_", "$"), { kind: "dropped", named: true });
  assert.deepEqual(metaVariableOf("µµµ", "µ"), { kind: "ellipsis", name: null });
  assert.deepEqual(metaVariableOf("µµµARGS", "µ"), { kind: "ellipsis", name: "ARGS" });
  assert.equal(metaVariableOf("$abc", "$"), null);
  assert.equal(metaVariableOf("µA.b", "µ"), null);
});

Deno.test("compilePattern descends to the one node and lists its literal tokens in order", async () => {
  const call = await compile("python", "foo($A, key=1)");
  assert.equal(call.rootKind, "call");
  assert.deepEqual(call.tokens, ["foo", "(", ",", "key", "=", "1", ")"]);
  assert.deepEqual(call.variables, ["A"]);
  // Optional statement terminators are not required literals (ASI, Go line ends).
  const ts = await compile("typescript", "if ($A) return $B;");
  assert.ok(!ts.tokens.includes(";"));
  assert.equal((await compile("java", "foo($A)")).rootKind, "method_invocation");
  assert.equal((await compile("rust", "return Err($E)")).rootKind, "return_expression");
  assert.equal((await compile("python", "$A")).rootKind, null);
});

Deno.test("invalid patterns carry the position and what was expected", async () => {
  const cases: [string, string, number, number, string][] = [
    ["python", "foo(", 1, 5, ")"],
    ["python", "x = [1,\n  2", 2, 4, "]"],
    ["go", "f(a))", 1, 5, ""],
    ["rust", "match x { a => 1 ", 1, 18, "}"],
  ];
  for (const [language, pattern, line, column, expected] of cases) {
    await assert.rejects(compile(language, pattern), (error: unknown) => {
      assert.ok(error instanceof InvalidPatternError, String(error));
      assert.equal(error.problem?.line, line, `${pattern}: ${error.message}`);
      assert.equal(error.problem?.column, column, `${pattern}: ${error.message}`);
      if (expected) assert.ok(error.problem?.expected.includes(expected), error.message);
      return true;
    });
  }
  await assert.rejects(compile("python", ""), /empty/);
  await assert.rejects(compile("python", "# only a comment"), /no code/);
  await assert.rejects(compile("python", "+"), InvalidPatternError);
});

Deno.test("matching follows ast-grep's smart strictness", async () => {
  const code = "foo(a, b)\nfoo(a, b,)\nfoo(a)\nfoo(a, # note\n    b)\nfoo(foo(x, y), z)\n";
  assert.deepEqual(await matchTexts("python", "foo($A, $B)", code), [
    "foo(a, b)",
    "foo(a, b,)",
    "foo(a, # note\n    b)",
    "foo(foo(x, y), z)",
    "foo(x, y)",
  ]);
  assert.deepEqual(await matchTexts("python", "foo($$$)", "foo()\nfoo(1, 2)\n"), [
    "foo()",
    "foo(1, 2)",
  ]);
  assert.deepEqual(await matchTexts("python", "foo(a, $$$)", "foo(a)\nfoo(a, 1)\n"), ["foo(a, 1)"]);
  assert.deepEqual(await matchTexts("python", "$A == $A", "x == x\nx == y\nf(1) == f( 1 )\n"), [
    "x == x",
    "f(1) == f( 1 )",
  ]);
  // String contents must be equal even where a grammar has no node for them (Go).
  assert.deepEqual(
    await matchTexts("go", 'f($A, "-")', 'package a\nfunc g() { f(s, "-"); f(s, "--") }\n'),
    ['f(s, "-")'],
  );
});

Deno.test("the prefilter's terms and order check", () => {
  // Identifier parts longer than one character, lower case; punctuation and one letter give none.
  assert.deepEqual(
    requiredTerms(["a", "(", "retryWithBackoff", 'say "hi"', "max_attempts", "x1", "HTTPServer"]),
    ["retry", "with", "backoff", "say", "hi", "max", "attempts", "http", "server"],
  );
  assert.deepEqual(requiredTerms(["(", "=", "a", "$"]), []);
  // Phrases: identifiers of several parts, their parts in order, repeats kept; a dotted literal,
  // a string and one-part identifiers give none.
  assert.deepEqual(
    requiredPhrases([
      "retryWithBackoff",
      'say "hi"',
      "max_attempts",
      "x1",
      "HTTPServer",
      "foo_bar_foo_baz",
      "a.b_c",
      "get_x_value",
      "sympify",
      "max_attempts",
    ]),
    ["retry with backoff", "max attempts", "http server", "foo bar foo baz", "get value"],
  );
  assert.ok(containsInOrder("foo ( a , b )", ["foo", "(", ",", ")"]));
  assert.ok(!containsInOrder(") foo (", [")", "(", ")"]));
});

Deno.test("languages come from extensions and names", () => {
  assert.equal(grepLanguageForPath("src/a.tsx")?.language, "tsx");
  assert.equal(grepLanguageForPath("src/**/*.py")?.language, "python");
  assert.equal(grepLanguageForPath("Makefile"), null);
  assert.equal(grepLanguageNamed("rs")?.language, "rust");
  assert.equal(grepLanguageNamed("cobol"), null);
});

Deno.test("the Python lexer finds top-level statements outside strings, brackets and clauses", () => {
  const text = [
    "import os", // 1
    'DOC = """', // 2
    "def not_code():", // 3: inside a string
    '"""', // 4
    "x = f(", // 5
    "1)", // 6: inside brackets
    "@decorator", // 7
    "def g(): pass", // 8: decorated, same statement
    "if x:", // 9
    "    pass", // 10
    "else:", // 11: a clause of the if
    "    y = 'a \\' b'  # '", // 12
    "z = 1 + \\", // 13
    "2", // 14: continuation
    "",
  ].join("\n");
  const ranges = pythonStatementRanges(text)!;
  assert.deepEqual(ranges.map((range) => range.startPosition.row + 1), [1, 2, 5, 7, 9, 13]);
  assert.equal(ranges[ranges.length - 1].endIndex, text.length);
  assert.equal(ranges[1].endIndex, ranges[2].startIndex);
  assert.equal(pythonStatementRanges('x = """never closed\n'), null);
});
