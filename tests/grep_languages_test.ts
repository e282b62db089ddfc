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
