/**
 * Bad input for the extractor: pathological nesting, a 10k-line function and a minified
 * one-line file are indexed through the real Worker pool; each is bounded, the Worker
 * survives (a normal file in the same refresh is indexed) and every cut is a diagnostic.
 */
import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { LIMITS } from "../src/indexer/extract.ts";
import { fixtureRepository, openTarget, withWorkspace } from "./_helpers.ts";

const NESTED_FUNCTIONS = 3000;

function generated(): Record<string, string> {
  const nested = "function f0() {\n" +
    Array.from({ length: NESTED_FUNCTIONS }, (_, i) => `function f${i + 1}() {\n`).join("") +
    "}\n".repeat(NESTED_FUNCTIONS + 1);
  const minified = Array.from(
    { length: 8000 },
    (_, i) => `function a${i}(b,c){return b.x${i}(c)+g(b,${i})}`,
  ).join(";") + "\n";
  const longFunction = "def big():\n" +
    Array.from({ length: 10_000 }, (_, i) => `    v${i} = compute(${i}, "x")\n`).join("");
  return {
    "deep_functions.js": nested,
    "deep_expression.js": `x = ${"(\n".repeat(20_000)}1${")".repeat(20_000)};\n`,
    "deep_lists.py": `x = ${"[\n".repeat(10_000)}${"]".repeat(10_000)}\n`,
    "app.min.js": minified,
    "long.py": longFunction,
    "ok.py": "def fine():\n    return 1\n",
  };
}

function errors(db: DatabaseSync): Map<string, string> {
  const rows = db.prepare("SELECT path, message FROM index_errors").all() as {
    path: string;
    message: string;
  }[];
  return new Map(rows.map((row) => [row.path, row.message]));
}

Deno.test("pathological files are bounded, recorded as diagnostics, and the Worker survives", async () => {
  const root = fixtureRepository(generated());
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    const db = openTarget(workspace);
    try {
      const files = db.prepare("SELECT path FROM source_files ORDER BY path").all()
        .map((row) => String(row.path));
      assert.deepEqual(files, [
        "app.min.js",
        "deep_expression.js",
        "deep_functions.js",
        "deep_lists.py",
        "long.py",
        "ok.py",
      ]);
      const found = errors(db);
      for (const path of ["deep_functions.js", "deep_expression.js", "deep_lists.py"]) {
        assert.match(
          found.get(path) ?? "",
          /nesting deeper than/,
          `${path}: ${JSON.stringify([...found])}`,
        );
      }
      assert.match(found.get("app.min.js") ?? "", /minified/);
      assert.equal(found.has("ok.py"), false);
      assert.equal(found.has("long.py"), false, "a long function is not cut");

      // The nested functions keep the outer levels as symbols.
      const nested = db.prepare(
        `SELECT count(*) AS n FROM code_symbols s JOIN source_files f ON f.id = s.file_id
          WHERE f.path = 'deep_functions.js'`,
      ).get() as { n: number };
      assert.ok(nested.n > 10 && nested.n < NESTED_FUNCTIONS, `${nested.n} nested symbols`);

      // No chunk is larger than the bound, also for the one-line file.
      const largest = db.prepare(
        `SELECT f.path, max(c.end_byte - c.start_byte) AS size FROM source_chunks c
           JOIN source_files f ON f.id = c.file_id GROUP BY f.path`,
      ).all() as { path: string; size: number }[];
      for (const row of largest) {
        assert.ok(row.size <= LIMITS.chunkChars * 4, `${row.path}: chunk of ${row.size} bytes`);
      }
      const minChunks = db.prepare(
        `SELECT count(*) AS n FROM source_chunks c JOIN source_files f ON f.id = c.file_id
          WHERE f.path = 'app.min.js'`,
      ).get() as { n: number };
      assert.ok(minChunks.n > 10, "the one-line file is cut into windows");

      // The 10k-line function is one symbol whose chunks all carry its path.
      const paths = db.prepare(
        `SELECT DISTINCT c.symbol_path AS path FROM source_chunks c
           JOIN source_files f ON f.id = c.file_id WHERE f.path = 'long.py'`,
      ).all().map((row) => row.path);
      assert.deepEqual(paths, ["long.big"]);

      const search = await run("search", { query: "fine" });
      assert.ok(
        search.results.some((hit) => hit.path === "ok.py"),
        "the normal file is searchable",
      );
    } finally {
      db.close();
    }
  });
});
