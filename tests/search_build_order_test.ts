/**
 * Search answers depend on the indexed text, not on the order a target happened to write it
 * in: chunk ids follow the order files were written (a cold index writes them as the parse
 * Workers reply; a refresh rewrites changed files at the end), and ties in every ranking used to
 * fall by chunk id. Two targets of the same files, written in different orders, answer alike —
 * every strategy, scores and order included.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { fixtureRepository, withWorkspace, writeFiles } from "./_helpers.ts";
import { readVarints, writeVarints } from "../src/store/fts_totals.ts";
import type { Envelope } from "../src/protocol/types.ts";

// The same function in several files: equal bm25, equal vectors, equal everything but the path.
const SHARED = "def shared_helper(value):\n    return value * 2\n";
const FILES: Record<string, string> = {
  "alpha/one.py": SHARED,
  "beta/two.py": SHARED,
  "gamma/three.py": SHARED,
  "delta/four.py": `${SHARED}\n\ndef other(value):\n    return shared_helper(value)\n`,
  "notes.md": "# Notes\n\nshared_helper doubles a value.\n",
};
// One method's text in two classes (chunks of their own, the classes being over the chunk
// budget): equal text under two symbol paths, so two vectors (a vector counts the symbol path).
const windows = (name: string) =>
  `class ${name}:\n    def run(self, value):\n        total = 0\n` +
  Array.from({ length: 60 }, (_, i) => `        total = total + value * ${i}\n`).join("") +
  `        return total\n\n    def ${name.toLowerCase()}_only(self):\n` +
  Array.from({ length: 60 }, (_, i) => `        x${i} = "${name}${i}"\n`).join("") +
  `        return x0\n`;
FILES["classes/alpha.py"] = windows("Alpha");
FILES["classes/beta.py"] = windows("Beta");
const QUERIES = [
  "shared_helper",
  "shared helper value",
  "doubles a value",
  "Alpha run value total",
  "Beta run value total",
];

function comparable(answer: Envelope): unknown {
  return answer.results.map((r) => {
    const hit = r as { path: string; start_line: number; score: number };
    return `${hit.path}:${hit.start_line}=${hit.score}`;
  });
}

/**
 * Answers of a target built cold (`cold`), one that wrote the first two files last (`late`), or
 * one that rewrote them twice since (`rewritten`: FTS5 keeps its row and token totals as they
 * were when a row of a contentless-delete table is deleted; the writer takes them off).
 */
async function answers(
  order: "cold" | "late" | "rewritten",
  late = ["alpha/one.py", "beta/two.py"],
): Promise<unknown[]> {
  const first = Object.fromEntries(
    Object.entries(FILES).filter(([path]) => order === "cold" || !late.includes(path)),
  );
  const root = fixtureRepository(first);
  return await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    if (order === "late") {
      // Added after every other file: their chunks get the highest ids.
      writeFiles(root, Object.fromEntries(late.map((path) => [path, FILES[path]])));
      await run("refresh");
    }
    if (order === "rewritten") {
      for (const path of late) {
        for (const text of [`${SHARED}# changed\n`, FILES[path]]) {
          writeFiles(root, { [path]: text });
          await run("refresh");
        }
      }
      // Read-write: FTS5's check is an INSERT, though it writes nothing.
      const db = new DatabaseSync(workspace.repositories[0].location.databasePath);
      try {
        // FTS5's own check of its index and totals against the stored document sizes.
        db.exec(
          "INSERT INTO source_chunks_fts(source_chunks_fts, rank) VALUES('integrity-check', 0)",
        );
        const averages = db.prepare("SELECT block FROM source_chunks_fts_data WHERE id = 1").get();
        const rows = db.prepare("SELECT count(*) AS n FROM source_chunks").get();
        assert.equal(readVarints(averages!.block as Uint8Array)[0], Number(rows!.n));
      } finally {
        db.close();
      }
    }
    const out: unknown[] = [];
    for (const query of QUERIES) {
      for (const strategy of ["lexical", "vector", "hybrid"]) {
        out.push([query, strategy, comparable(await run("search", { query, strategy }))]);
      }
    }
    return out;
  });
}

Deno.test("SQLite varints: FTS5's document sizes and totals, read and written back", () => {
  const values = [0, 1, 127, 128, 240, 2287, 16383, 16384, 2 ** 21, 2 ** 35 + 7, 2 ** 53 - 1];
  assert.deepEqual(readVarints(writeVarints(values)), values);
  assert.deepEqual([...writeVarints([5, 47, 14])], [5, 47, 14]);
  assert.deepEqual([...writeVarints([300])], [0x82, 0x2c]);
  assert.throws(() => writeVarints([-1]));
});

Deno.test("search answers the same whatever order the target wrote the files in", async () => {
  const cold = await answers("cold");
  assert.deepEqual(await answers("late"), cold);
  assert.deepEqual(await answers("rewritten"), cold);
  // Either class's method written last: one of them was written after the other in `cold`.
  assert.deepEqual(await answers("late", ["classes/alpha.py"]), cold);
  assert.deepEqual(await answers("late", ["classes/beta.py"]), cold);
  // The tie is real: the equal functions are all found.
  const [, , first] = cold[0] as [string, string, string[]];
  assert.ok(first.length >= 3, JSON.stringify(first));
});
