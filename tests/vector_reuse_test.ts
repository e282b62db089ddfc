import assert from "node:assert/strict";
import { HASH_MODEL_ID, hashVector, termCounts } from "../src/engine/vector.ts";
import { nearestChunks, vectorIndexFor } from "../src/search/vector_index.ts";
import { count, fixtureRepository, openTarget, withWorkspace, writeFiles } from "./_helpers.ts";

/** Functions large enough (over the chunk budget together) to be chunks of their own. */
const functions = (names: string[]) =>
  names.map((name) =>
    `export function ${name}(input: string): string {\n` +
    Array.from({ length: 30 }, (_, i) => `  const step${i} = input.trim() + "${name}-${i}";\n`)
      .join("") +
    `  return step0;\n}\n`
  ).join("\n");

Deno.test("vectors: one per chunk content hash; re-indexing unchanged chunks computes none", async () => {
  const root = fixtureRepository({
    "src/a.ts": functions(["alpha", "beta", "gamma"]),
    "src/b.ts": functions(["delta", "epsilon"]),
    "docs/guide.md":
      "# Guide\n\nRetry with exponential backoff.\n\n## Limits\n\nAt most five tries.\n",
  });
  await withWorkspace(root, async (workspace) => {
    const repo = workspace.repositories[0];
    const first = await workspace.refresh(repo);
    assert.ok(first.vectors.computed > 0);
    assert.equal(first.vectors.reused, 0);
    const db = openTarget(workspace);
    try {
      const distinctHashes = count(db, "SELECT count(DISTINCT content_hash) FROM source_chunks");
      assert.equal(count(db, "chunk_vectors"), distinctHashes);
      assert.equal(first.vectors.computed, distinctHashes);
    } finally {
      db.close();
    }

    // Nothing changed: nothing parsed, nothing vectorized.
    const noop = await workspace.refresh(repo);
    assert.deepEqual(noop.vectors, { computed: 0, reused: 0 });

    // One file edited: its unchanged chunks reuse their vectors, only the new one is computed.
    writeFiles(root, { "src/a.ts": functions(["alpha", "beta", "gammaChanged"]) });
    const edit = await workspace.refresh(repo);
    assert.equal(edit.parsed, 1);
    assert.ok(edit.vectors.reused > 0, JSON.stringify(edit.vectors));
    assert.ok(edit.vectors.computed < first.vectors.computed, JSON.stringify(edit.vectors));

    // A pure move of text (its chunks have no symbol path): every chunk keeps its content hash,
    // so no vector is computed.
    Deno.renameSync(`${root}/docs/guide.md`, `${root}/docs/moved.md`);
    const move = await workspace.refresh(repo);
    assert.equal(move.vectors.computed, 0, JSON.stringify(move.vectors));
    assert.ok(move.vectors.reused > 0);

    // A moved module's definitions are named from its new path: their symbol paths, counted in
    // their vectors, change, and so do their content hashes (a hash is of symbol path and text).
    Deno.renameSync(`${root}/src/b.ts`, `${root}/src/moved.ts`);
    const renamed = await workspace.refresh(repo);
    assert.ok(renamed.vectors.computed > 0, JSON.stringify(renamed.vectors));

    // Vectors of chunks that no longer exist are dropped at commit.
    const after = openTarget(workspace);
    try {
      const orphans = count(
        after,
        `SELECT count(*) FROM chunk_vectors v WHERE NOT EXISTS
           (SELECT 1 FROM source_chunks c WHERE c.content_hash = v.content_hash)`,
      );
      assert.equal(orphans, 0);
    } finally {
      after.close();
    }
  });
});

Deno.test("vectors: hashing vectors are deterministic unit vectors; near names score higher", () => {
  const a = hashVector(termCounts("parseconfigfile parse config file"));
  const b = hashVector(termCounts("parseconfigfile parse config file"));
  assert.deepEqual(a, b);
  const norm = Math.sqrt(a.reduce((sum, x) => sum + x * x, 0));
  assert.ok(Math.abs(norm - 1) < 1e-5);
  const near = hashVector(termCounts("configparser config parser"));
  const far = hashVector(termCounts("httpclient http client"));
  const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i], 0);
  assert.ok(dot(a, near) > dot(a, far));
  assert.equal(hashVector([]).every((x) => x === 0), true);
});

Deno.test("vectors: the in-memory scan finds the nearest chunk and honours the file filter", async () => {
  const root = fixtureRepository({
    "src/retry.ts":
      "export function retryWithBackoff(attempts: number) {\n  return attempts * 2;\n}\n",
    "src/cookies.ts":
      "export function mergeCookies(jar: Map<string, string>) {\n  return jar;\n}\n",
  });
  await withWorkspace(root, async (workspace) => {
    await workspace.refresh(workspace.repositories[0]);
    const db = openTarget(workspace);
    try {
      const index = workspace.withReader(
        workspace.repositories[0],
        (reader) => vectorIndexFor(reader, HASH_MODEL_ID),
      ).value!;
      assert.ok(index.chunkIds.length >= 2);
      const query = hashVector([["retrywithbackoff", 1], ["retry", 1], ["backoff", 1]]);
      const [best] = nearestChunks(index, query, { limit: 3 });
      const path = (db.prepare(
        "SELECT f.path AS path FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE c.id = ?",
      ).get(best.chunkId) as { path: string }).path;
      assert.equal(path, "src/retry.ts");
      const retryFile = (db.prepare("SELECT id FROM source_files WHERE path = 'src/retry.ts'")
        .get() as { id: number }).id;
      const filtered = nearestChunks(index, query, {
        limit: 3,
        allowFile: (fileId) => fileId !== retryFile,
      });
      assert.ok(filtered.every((hit) => hit.chunkId !== best.chunkId));
    } finally {
      db.close();
    }
  });
});
