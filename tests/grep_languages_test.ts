/**
 * Structural grep per language, through the public `grep` action on a fixture
 * repository: single and multiple metavariables with their bindings, repeated
 * metavariables bound to equal code, and nothing matched inside comments or
 * string literals.
 */
import assert from "node:assert/strict";
import type { Envelope, ResultHit } from "../src/protocol/types.ts";
import { fixtureRepository, withWorkspace } from "./_helpers.ts";

type Run = (action: string, params?: Record<string, unknown>) => Promise<Envelope>;

const FILES: Record<string, string> = {
  "py/app.py": [
    "import logging",
    "",
    "def load(path, mode='r'):",
    "    handle = open(path, mode)",
    "    # open(path, 'w') in a comment is not code",
    "    note = \"open(path, 'w') in a string is not code\"",
    "    total = add(1, 1) + add(1, 2)",
    '    return f"{open(path)}"',
    "",
    "@cached",
    "def size(self, *args):",
    "    try:",
    "        return compute(self)",
    "    except ValueError as error:",
    "        raise RuntimeError(error)",
    "",
  ].join("\n"),
  "ts/app.ts": [
    "import { z } from 'zod';",
    "const user = z.object({ name: z.string(), age: z.number() });",
    "// z.object({ hidden: z.string() })",
    "const text = 'z.object({ quoted: true })';",
    "const template = `z.object(${z.object({ inner: z.string() })})`;",
    "expect(user).toEqual(user);",
    "expect(user).toEqual(other);",
    "logger.info('a', 1, true);",
    "",
  ].join("\n"),
  "go/main.go": [
    "package main",
    "",
    "func run(items []string) error {",
    "\terr := work(items, 2)",
    "\tif err != nil {",
    "\t\treturn err",
    "\t}",
    "\t// if err != nil { return err }",
    '\tmsg := "if err != nil { return err }"',
    '\tcmd := &Command{Use: "serve", Short: "s"}',
    "\tsame(cmd, cmd)",
    "\tsame(cmd, msg)",
    "\treturn nil",
    "}",
    "",
  ].join("\n"),
  "rs/lib.rs": [
    "fn parse(input: &str) -> Result<u32, String> {",
    "    let value = input.parse::<u32>().map_err(|e| e.to_string())?;",
    "    // input.parse::<u32>().unwrap()",
    '    let s = "value.unwrap()";',
    "    let first = value.checked_add(value).unwrap();",
    "    let config = Config { name: s, depth: 3 };",
    "    Ok(first)",
    "}",
    "",
  ].join("\n"),
  "java/App.java": [
    "class App {",
    "  void check(String name) throws Exception {",
    "    if (name == null) {",
    '      throw new IllegalArgumentException("name", cause);',
    "    }",
    '    // throw new IllegalArgumentException("comment");',
    '    String s = "throw new IllegalArgumentException()";',
    "    boolean a = name.equals(name);",
    "    boolean b = name.equals(s);",
    "  }",
    "}",
    "",
  ].join("\n"),
};

/**
 * Runs a pattern twice: the second run parses only the top-level statements
 * the first one recorded, and must answer the same.
 */
async function grep(run: Run, params: Record<string, unknown>): Promise<ResultHit[]> {
  const answer = await run("grep", { refresh: false, ...params });
  assert.equal(answer.provenance.backend, "structural");
  assert.equal(answer.provenance.confidence, "exact");
  const again = await run("grep", { refresh: false, ...params });
  assert.deepEqual(again.results, answer.results);
  return answer.results;
}

function texts(hits: ResultHit[]): string[] {
  return hits.map((hit) => hit.snippet.trim());
}

type Binding = { text: string; start_line?: number; start_col?: number; nodes?: number };

function binding(hit: ResultHit, name: string): Binding {
  return (hit.bindings as Record<string, Binding>)[name];
}

Deno.test("grep matches by language with bindings, equal repeats, and never in comments or strings", async (t) => {
  const root = fixtureRepository(FILES);
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");

    await t.step("python: single and multiple metavariables", async () => {
      const hits = await grep(run, { pattern: "open($P, $$$REST)", language: "python" });
      assert.deepEqual(hits.map((h) => h.start_line), [4]);
      assert.equal(hits[0].path, "py/app.py");
      assert.equal(binding(hits[0], "P").text, "path");
      assert.equal(binding(hits[0], "P").start_line, 4);
      assert.equal(binding(hits[0], "P").start_col, 19);
      assert.equal(binding(hits[0], "REST").text, "mode");
      // The call inside the f-string interpolation is code; the ones in the comment and string are not.
      const all = await grep(run, { pattern: "open($$$)", language: "python" });
      assert.deepEqual(all.map((h) => h.start_line), [4, 8]);
    });

    await t.step("python: repeated metavariable binds equal code", async () => {
      const hits = await grep(run, { pattern: "add($A, $A)", language: "python" });
      assert.equal(hits.length, 1);
      assert.equal(hits[0].start_col, 13);
      assert.equal(hits[0].end_col, 22);
    });

    await t.step("python: decorated definitions and error handling shapes", async () => {
      const decorated = await grep(run, {
        pattern: "@cached\ndef $F(self, $$$ARGS):\n    $$$BODY",
        language: "python",
      });
      assert.equal(decorated.length, 1);
      assert.equal(binding(decorated[0], "F").text, "size");
      assert.equal(binding(decorated[0], "ARGS").text, "*args");
      const handlers = await grep(run, {
        pattern: "try:\n    $$$A\nexcept $E as $N:\n    raise $X($N)",
        language: "python",
      });
      assert.equal(handlers.length, 1);
      assert.equal(binding(handlers[0], "E").text, "ValueError");
    });

    await t.step("typescript: object literals, chains and repeats", async () => {
      const objects = await grep(run, {
        pattern: "z.object({ $$$FIELDS })",
        language: "typescript",
      });
      // The template substitution holds code; the comment and the plain string do not.
      assert.deepEqual(objects.map((h) => h.start_line), [2, 5]);
      assert.equal(binding(objects[0], "FIELDS").text, "name: z.string(), age: z.number()");
      const same = await grep(run, { pattern: "expect($A).toEqual($A)", language: "typescript" });
      assert.deepEqual(texts(same), ["expect(user).toEqual(user);"]);
      const many = await grep(run, { pattern: "logger.info($$$ARGS)", language: "ts" });
      assert.equal(binding(many[0], "ARGS").nodes, 3);
    });

    await t.step("go: error handling and struct literals", async () => {
      const checks = await grep(run, { pattern: "if err != nil { return err }", language: "go" });
      assert.deepEqual(checks.map((h) => [h.start_line, h.end_line]), [[5, 7]]);
      const literal = await grep(run, { pattern: "&Command{Use: $U, $$$}", language: "go" });
      assert.equal(binding(literal[0], "U").text, '"serve"');
      const same = await grep(run, { pattern: "same($A, $A)", language: "go" });
      assert.deepEqual(same.map((h) => h.start_line), [11]);
    });

    await t.step("rust: method chains, struct literals, repeats", async () => {
      const unwraps = await grep(run, { pattern: "$A.unwrap()", language: "rust" });
      assert.deepEqual(unwraps.map((h) => h.start_line), [5]);
      assert.equal(binding(unwraps[0], "A").text, "value.checked_add(value)");
      const repeated = await grep(run, { pattern: "$A.checked_add($A)", language: "rust" });
      assert.equal(repeated.length, 1);
      const config = await grep(run, { pattern: "Config { $$$FIELDS }", language: "rust" });
      assert.equal(binding(config[0], "FIELDS").text, "name: s, depth: 3");
    });

    await t.step("java: throws, null checks, repeats", async () => {
      const throws = await grep(run, {
        pattern: "throw new IllegalArgumentException($$$ARGS);",
        language: "java",
      });
      assert.deepEqual(throws.map((h) => h.start_line), [4]);
      assert.equal(binding(throws[0], "ARGS").text, '"name", cause');
      const same = await grep(run, { pattern: "$A.equals($A)", language: "java" });
      assert.deepEqual(same.map((h) => h.start_line), [8]);
      const nullCheck = await grep(run, { pattern: "if ($A == null) { $$$ }", language: "java" });
      assert.equal(binding(nullCheck[0], "A").text, "name");
    });

    await t.step("seed spellings \\NAME and \\(ARGS*\\) are aliases", async () => {
      const hits = await grep(run, { pattern: "open(\\P, \\(REST*\\))", language: "python" });
      assert.equal(binding(hits[0], "P").text, "path");
      assert.equal(binding(hits[0], "REST").text, "mode");
    });
  });
});

/** One file per language grep gained: a call with two arguments, the same call in a comment, a
 * string and (where the language has one) an interpolation, and a call repeating its argument. */
const MORE_FILES: Record<string, string> = {
  "rb/app.rb": [
    "class Greeter",
    "  def run(name)",
    '    log("a", name)',
    '    # log("x", y)',
    '    s = "log(1, 2) #{log(3, 4)}"',
    "    same(name, name)",
    "  end",
    "end",
    "",
  ].join("\n"),
  "c/app.c": [
    "int run(int x) {",
    '  log_msg("a", x);',
    '  /* log_msg("b", x); */',
    '  char *s = "log_msg(1, 2)";',
    "  return same(x, x);",
    "}",
    "",
  ].join("\n"),
  "cpp/app.cpp": [
    "namespace app {",
    "int run(int x) {",
    '  log_msg("a", x);',
    '  auto s = R"(log_msg(1, 2))";',
    "  return same(x, x);",
    "}",
    "}",
    "",
  ].join("\n"),
  "cs/App.cs": [
    "class App {",
    "  int Run(int x) {",
    '    Log("a", x);',
    '    var s = $"Log(1, 2) {Log("b", 3)}";',
    "    return Same(x, x);",
    "  }",
    "}",
    "",
  ].join("\n"),
  "php/app.php": [
    "<?php",
    "function run($x) {",
    '  log_msg("a", $x);',
    "  $s = 'log_msg(1, 2)';",
    '  $t = "{$x->log_msg(3, 4)}";',
    "  return same($x, $x);",
    "}",
    "",
  ].join("\n"),
  "kt/App.kt": [
    "fun run(x: Int): Int {",
    '    log("a", x)',
    '    val s = "log(1, 2) ${log("b", 3)}"',
    "    return same(x, x)",
    "}",
    "",
  ].join("\n"),
  "swift/App.swift": [
    "func run(x: Int) -> Int {",
    '    log("a", x)',
    '    let s = "log(1, 2) \\(log("b", 3))"',
    "    return same(x, x)",
    "}",
    "",
  ].join("\n"),
  "scala/App.scala": [
    "object App {",
    "  def run(x: Int): Int = {",
    '    log("a", x)',
    '    val s = s"log(1, 2) ${log("b", 3)}"',
    "    same(x, x)",
    "  }",
    "}",
    "",
  ].join("\n"),
  "sh/app.sh": [
    "run() {",
    '  log_msg "a" "$1"',
    '  echo "log_msg 1 2 $(log_msg b 3)"',
    "  # log_msg c 4",
    "  echo 'log_msg 5 6'",
    "}",
    "",
  ].join("\n"),
  "lua/app.lua": [
    "local function run(x)",
    '  log("a", x)',
    "  -- log(1, 2)",
    '  local s = "log(1, 2)"',
    "  return same(x, x)",
    "end",
    "",
  ].join("\n"),
};

Deno.test("grep matches in every language with structure, never in comments or strings", async (t) => {
  const root = fixtureRepository(MORE_FILES);
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const cases: [
      language: string,
      call: string,
      repeat: string,
      lines: number[],
      repeatLine: number,
    ][] = [
      ["ruby", "log($A, $B)", "same($A, $A)", [3, 5], 6],
      ["c", "log_msg($A, $B)", "same($A, $A)", [2], 5],
      ["cpp", "log_msg($A, $B)", "same($A, $A)", [3], 5],
      ["csharp", "Log($A, $B)", "Same($A, $A)", [3, 4], 5],
      ["php", "log_msg($A, $B)", "same($A, $A)", [3], 6],
      ["kotlin", "log($A, $B)", "same($A, $A)", [2, 3], 4],
      ["swift", "log($A, $B)", "same($A, $A)", [2, 3], 4],
      ["scala", "log($A, $B)", "same($A, $A)", [3, 4], 5],
      ["lua", "log($A, $B)", "same($A, $A)", [2], 5],
    ];
    for (const [language, call, repeat, lines, repeatLine] of cases) {
      await t.step(
        `${language}: bindings, interpolations are code, comments and strings are not`,
        async () => {
          const hits = await grep(run, { pattern: call, language });
          assert.deepEqual(hits.map((h) => h.start_line), lines);
          assert.equal(binding(hits[0], "A").text, '"a"');
          const same = await grep(run, { pattern: repeat, language });
          assert.deepEqual(same.map((h) => h.start_line), [repeatLine]);
          assert.equal(binding(same[0], "A").text, { php: "$x", ruby: "name" }[language] ?? "x");
        },
      );
    }

    await t.step("php: a method call inside a double-quoted string is code", async () => {
      const hits = await grep(run, { pattern: "$O->log_msg($$$ARGS)", language: "php" });
      assert.deepEqual(hits.map((h) => h.start_line), [5]);
      assert.equal(binding(hits[0], "ARGS").text, "3, 4");
    });

    await t.step(
      "bash: commands with metavariables, also inside command substitutions",
      async () => {
        const hits = await grep(run, { pattern: "log_msg $A $B", language: "bash" });
        assert.deepEqual(hits.map((h) => [h.start_line, h.start_col]), [[2, 3], [3, 23]]);
        assert.equal(binding(hits[0], "A").text, '"a"');
        const rest = await grep(run, { pattern: "log_msg $$$ARGS", language: "sh" });
        assert.equal(rest.length, 2);
      },
    );

    await t.step("ruby: a method whose `end` the pattern leaves out", async () => {
      const hits = await grep(run, { pattern: "def $M($$$ARGS)", language: "ruby" });
      assert.deepEqual(hits.map((h) => binding(h, "M").text), ["run"]);
    });
  });
});
