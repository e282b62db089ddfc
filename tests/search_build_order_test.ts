/**
 * Search answers depend on the indexed text, not on the order a target happened to write it
 * in: chunk ids follow the order files were written (a cold index writes them as the parse
 * Workers reply; a refresh rewrites changed files at the end), and ties in every ranking used to
 * fall by chunk id. Two targets of the same files, written in different orders, answer alike —
 * every strategy, scores and order included.
 */
import assert from "node:assert/strict";
import { fixtureRepository, withWorkspace, writeFiles } from "./_helpers.ts";
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
const QUERIES = ["shared_helper", "shared helper value", "doubles a value"];

function comparable(answer: Envelope): unknown {
  return answer.results.map((r) => {
    const hit = r as { path: string; start_line: number; score: number };
    return `${hit.path}:${hit.start_line}=${hit.score}`;
  });
}

/** Answers of a target built cold (`cold`), or one that wrote the first two files last. */
async function answers(order: "cold" | "late"): Promise<unknown[]> {
  const late = ["alpha/one.py", "beta/two.py"];
  const first = Object.fromEntries(
    Object.entries(FILES).filter(([path]) => order === "cold" || !late.includes(path)),
  );
  const root = fixtureRepository(first);
  return await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    if (order === "late") {
      // Added after every other file: their chunks get the highest ids. (Only added: a file
      // rewritten leaves FTS5 statistics that count its old rows until segments merge.)
      writeFiles(root, Object.fromEntries(late.map((path) => [path, FILES[path]])));
      await run("refresh");
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

Deno.test("search answers the same whatever order the target wrote the files in", async () => {
  const cold = await answers("cold");
  const late = await answers("late");
  assert.deepEqual(late, cold);
  // The tie is real: the equal functions are all found.
  const [, , first] = cold[0] as [string, string, string[]];
  assert.ok(first.length >= 3, JSON.stringify(first));
});
