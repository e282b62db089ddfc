/**
 * A reader's chunk table for a new generation of the same target keeps the last one's rows of
 * files still indexed under their ids and reads only the rows written since (schema 7: ids are
 * never reused). After every kind of edit it must equal the table a new reader reads whole.
 */
import assert from "node:assert/strict";
import { type ChunkColumns, ChunkRowIndex } from "../src/store/reader.ts";
import { openTargetReader } from "../src/store/target.ts";
import { fixtureRepository, withWorkspace, writeFiles } from "./_helpers.ts";
import { seededRandom } from "./_random.ts";

/** A Python module of `n` functions (each a chunk of its own), its text varied by `seed`. */
function module(n: number, seed: number): string {
  return Array.from(
    { length: n },
    (_, i) =>
      `def step_${seed}_${i}(value, limit=${i}):\n` +
      Array.from({ length: 12 }, (_, j) => `    value = value * ${j + seed} + limit\n`).join("") +
      "    return value\n",
  ).join("\n\n");
}

/** The columns of a table as plain values, row by row in content order. */
function rowsOf(table: ChunkColumns): unknown[][] {
  return Array.from(table.ids, (id, at) => [
    id,
    table.rows.get(id),
    table.fileIds[at],
    table.startLines[at],
    table.endLines[at],
    table.startBytes[at],
    table.hashes[at],
    table.kinds[at],
    table.symbolPaths[at],
  ]);
}

Deno.test("chunk table: carried from generation to generation, equal to a whole read after edits, additions, deletions, renames and rewrites", async () => {
  const files: Record<string, string> = {
    "README.md": "# Steps\n\nSee the modules.\n\n## Use\n\nCall a step.\n",
    "src/app.ts": "export function start(): number {\n  return 1;\n}\n",
  };
  for (let i = 0; i < 6; i++) files[`pkg/m${i}.py`] = module(3 + i, i);
  const root = fixtureRepository(files);
  await withWorkspace(root, async (workspace) => {
    const repo = workspace.repositories[0];
    await workspace.refresh(repo);
    const next = seededRandom(7);
    const paths = () => Object.keys(files).filter((path) => path.endsWith(".py"));
    const pick = () => paths()[Math.floor(next() * paths().length)];
    let written = "";
    let added = 0;
    for (let round = 0; round < 14; round++) {
      // The long-lived reader (the workspace's) reads its table before the edit.
      const before = workspace.withReader(repo, (reader) => Array.from(reader.chunkColumns().ids))
        .value ?? [];
      assert.ok(before.length > 0);
      const kind = round % 7;
      if (kind === 0 || kind === 5) {
        // Lines above every chunk move down: same contents, other lines and bytes.
        const path = pick();
        files[path] = `# edited ${round}\n\n` + files[path];
        written = path;
      } else if (kind === 1) {
        const path = `pkg/new${added++}.py`;
        files[path] = module(2, 50 + round);
        written = path;
      } else if (kind === 2) {
        const path = pick();
        Deno.removeSync(`${root}/${path}`);
        delete files[path];
      } else if (kind === 3) {
        const path = pick();
        const to = path.replace(".py", `_r${round}.py`);
        Deno.renameSync(`${root}/${path}`, `${root}/${to}`);
        files[to] = files[path];
        delete files[path];
        written = to;
      } else if (kind === 4) {
        // The file written last (its rows hold the highest ids) changes again.
        if (written && files[written]) files[written] = module(4, 90 + round);
      } else {
        const path = pick();
        files[path] = module(1 + Math.floor(next() * 5), 200 + round);
      }
      writeFiles(
        root,
        Object.fromEntries(Object.entries(files).filter(([p]) => p.endsWith(".py"))),
      );
      const report = await workspace.refresh(repo);
      assert.ok(report.generation > 0);
      const carried = workspace.withReader(repo, (reader) => rowsOf(reader.chunkColumns()));
      // The table holds every chunk row (none left out for want of its file).
      workspace.withReader(repo, (reader) => {
        assert.equal(reader.fileTable().chunks, carried.value!.length, `round ${round}`);
      });
      // A chunk gone since (its file deleted, renamed or rewritten) has no row.
      const held = new Set(carried.value!.map((row) => row[0]));
      const gone = before.filter((id) => !held.has(id));
      if (kind === 2 || kind === 3) assert.ok(gone.length > 0, `round ${round}`);
      workspace.withReader(repo, (reader) => {
        for (const id of gone) assert.equal(reader.chunkColumns().rows.get(id), undefined);
      });
      const opened = openTargetReader(repo.location);
      assert.ok(opened.reader, `round ${round}: the target opens`);
      try {
        const whole = rowsOf(opened.reader.chunkColumns());
        assert.deepEqual(carried.value, whole, `round ${round} (edit kind ${kind})`);
      } finally {
        opened.reader.close();
      }
    }
  });
});

Deno.test("chunk row index: an id's row, and none for ids it does not hold, dense or sparse", () => {
  // Dense: ids over a span a few times their count (a build, then refreshes' new ids above).
  const dense = new ChunkRowIndex(Int32Array.from([7, 3, 9, 4, 20]));
  assert.deepEqual([7, 3, 9, 4, 20].map((id) => dense.get(id)), [0, 1, 2, 3, 4]);
  for (const id of [2, 5, 8, 19, 21, 1000, -1, 0, 3.5, NaN]) assert.equal(dense.get(id), undefined);
  // Sparse: ids far apart (a span past the array's bound) come from a Map, alike.
  const far = Int32Array.from([5, 2_000_000_000, 70_000]);
  const sparse = new ChunkRowIndex(far);
  assert.deepEqual(Array.from(far, (id) => sparse.get(id)), [0, 1, 2]);
  for (const id of [4, 6, 69_999, 1_999_999_999]) assert.equal(sparse.get(id), undefined);
  assert.equal(new ChunkRowIndex(new Int32Array(0)).get(0), undefined);
});
