/**
 * The vector scan: the SIMD kernel adds what plain arithmetic adds, the index
 * answers exactly as a full float scan ranks (ties, filters, odd dimensions),
 * an index loaded in one thread serves another through shared memory, and a
 * generation's index carried over from an earlier one equals a full read.
 */
import assert from "node:assert/strict";
import {
  HASH_MODEL_ID,
  hashVector,
  normalize,
  quantizedBytes,
  readQuantized,
} from "../src/engine/vector.ts";
import type { VectorRow } from "../src/store/reader.ts";
import { join } from "node:path";
import {
  adoptIndexes,
  generationIndex,
  loadVectorIndex,
  nearestChunks,
  type SharedVectorIndex,
  takeLoadedIndexes,
  type VectorHit,
  vectorIndexFor,
} from "../src/search/vector_index.ts";
import { packWeights, PASS_INTS, scoreFunction } from "../src/search/vector_kernel.ts";
import { embeddingConfig, providerModelId } from "../src/indexer/embeddings.ts";
import { fixtureRepository, openTarget, tempCache, withWorkspace, writeFiles } from "./_helpers.ts";
import { seededRandom } from "./_random.ts";

function randomUnit(next: () => number, dimensions: number, sparse = false): Float32Array {
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) {
    vector[i] = sparse && next() < 0.8 ? 0 : next() * 2 - 1;
  }
  return normalize(vector);
}

/** The scan as a plain float loop over every stored row: best first, earlier rows among equals. */
function reference(
  rows: VectorRow[],
  query: Float32Array,
  limit: number,
  allowFile?: (fileId: number) => boolean,
): VectorHit[] {
  return rows.map((row, at) => {
    const { scale, values } = readQuantized(row.vector);
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    let i = 0;
    for (; i + 4 <= values.length; i += 4) {
      s0 += values[i] * query[i];
      s1 += values[i + 1] * query[i + 1];
      s2 += values[i + 2] * query[i + 2];
      s3 += values[i + 3] * query[i + 3];
    }
    for (; i < values.length; i++) s0 += values[i] * query[i];
    return { at, chunkId: row.chunkId, fileId: row.fileId, score: (s0 + s1 + s2 + s3) * scale };
  }).filter((hit) => !allowFile || allowFile(hit.fileId))
    .sort((a, b) => b.score - a.score || a.at - b.at)
    .slice(0, limit)
    .map(({ chunkId, score }) => ({ chunkId, score }));
}

Deno.test("the SIMD kernel's sums are the plain int8 × int16 sums, column by listed column", () => {
  const next = seededRandom(3);
  const rows = 320;
  const dimensions = 48;
  const pages = 2;
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  const score = scoreFunction(memory, true, pages);
  // Dimension d of row r at d × rows + r.
  const values = new Int8Array(memory.buffer, 0, rows * dimensions);
  for (let i = 0; i < values.length; i++) values[i] = Math.floor(next() * 256) - 128;
  // The extremes, every row: the largest products.
  for (let r = 0; r < rows; r++) values[5 * rows + r] = r % 2 ? 127 : -128;
  const listAt = rows * dimensions;
  for (const passes of [1, 2, 12]) {
    // Four columns a pass (some repeated), extreme weights among them, the last weighing 0.
    const list = new Int32Array(memory.buffer, listAt, passes * PASS_INTS);
    const picked: [number, number][] = [];
    for (let k = 0; k < passes * 4; k++) {
      const weight = k % 3 === 0
        ? (k % 2 ? 32_767 : -32_768)
        : Math.floor(next() * 65_536) - 32_768;
      picked.push([
        k % 5 === 0 ? 5 : Math.floor(next() * dimensions),
        k === passes * 4 - 1 ? 0 : weight,
      ]);
    }
    for (let pass = 0; pass < passes; pass++) {
      const group = picked.slice(pass * 4, pass * 4 + 4);
      group.forEach(([d], j) => list[pass * PASS_INTS + j] = d * rows);
      list[pass * PASS_INTS + 4] = packWeights(group[0][1], group[1][1]);
      list[pass * PASS_INTS + 5] = packWeights(group[2][1], group[3][1]);
    }
    const outAt = listAt + passes * PASS_INTS * 4 + 16;
    const out = new Int32Array(memory.buffer, outAt, rows);
    out.fill(1);
    score(0, rows, listAt, passes, outAt);
    for (let row = 0; row < rows; row++) {
      let sum = 1;
      for (const [d, weight] of picked) sum += values[d * rows + row] * weight;
      assert.equal(out[row], sum, `${passes} passes, row ${row}`);
    }
  }
});

Deno.test("the index ranks as a full float scan: ties, file filters, odd dimensions, short lists", () => {
  const next = seededRandom(11);
  for (const dimensions of [256, 20, 7]) {
    const vectors = Array.from({ length: 700 }, (_, i) =>
      // Every fifth vector repeats an earlier one: equal scores must keep row order.
      i % 5 === 4 ? null : randomUnit(next, dimensions, i % 3 === 0));
    const rows: VectorRow[] = vectors.map((vector, i) => ({
      chunkId: 1000 + i,
      fileId: i % 37,
      vector: quantizedBytes(vector ?? vectors[i - 1] ?? vectors[i - 2]!),
    }));
    const index = loadVectorIndex(rows, rows.length, { model: "test" });
    assert.equal(index.rows, rows.length);
    for (let round = 0; round < 20; round++) {
      const query = randomUnit(next, dimensions, round % 2 === 0);
      for (const limit of [1, 10, 300, 1000]) {
        const allowFile = round % 3 === 0 ? (fileId: number) => fileId % 4 !== 1 : undefined;
        // Every fourth round with every scratch slot taken: the scan in JavaScript.
        if (round % 4 === 3) index.locks.fill(1);
        assert.deepEqual(
          nearestChunks(index, query, { limit, allowFile }),
          reference(rows, query, limit, allowFile),
          `dimensions ${dimensions}, round ${round}, limit ${limit}`,
        );
        index.locks.fill(0);
      }
    }
    assert.deepEqual(nearestChunks(index, new Float32Array(dimensions + 1), { limit: 5 }), []);
  }
  const empty = loadVectorIndex([], 0, { model: "test" });
  assert.deepEqual(nearestChunks(empty, new Float32Array(8), { limit: 5 }), []);
});

Deno.test("the index ranks as a full float scan when most rows tie at the cut", () => {
  const next = seededRandom(19);
  const dimensions = 64;
  const rows: VectorRow[] = Array.from({ length: 3000 }, (_, i) => {
    // Mostly one-hot rows: a one-hot query scores most of them exactly 0.
    const vector = new Float32Array(dimensions);
    vector[Math.floor(next() * dimensions)] = next() < 0.5 ? 1 : -1;
    if (i % 9 === 0) vector[Math.floor(next() * dimensions)] += 0.5;
    return { chunkId: 5000 + i, fileId: i % 50, vector: quantizedBytes(normalize(vector)) };
  });
  const index = loadVectorIndex(rows, rows.length, { model: "test" });
  for (let d = 0; d < dimensions; d += 7) {
    const query = new Float32Array(dimensions);
    query[d] = 1;
    for (const limit of [1, 10, 40]) {
      for (const allowFile of [undefined, (fileId: number) => fileId % 3 !== 0]) {
        assert.deepEqual(
          nearestChunks(index, query, { limit, allowFile }),
          reference(rows, query, limit, allowFile),
          `dimension ${d}, limit ${limit}`,
        );
      }
    }
  }
});

Deno.test("the index ranks as a full float scan when the best rows are the sampled ones", () => {
  // The cut is first looked for among every 16th row: here those are the best rows, so too few
  // rows reach the sample's bound and every row is a candidate.
  const next = seededRandom(23);
  const dimensions = 32;
  const query = randomUnit(next, dimensions);
  const rows: VectorRow[] = Array.from({ length: 2000 }, (_, i) => {
    const vector = randomUnit(next, dimensions);
    if (i % 16 === 0) { for (let d = 0; d < dimensions; d++) vector[d] = query[d] * 4 + vector[d]; }
    return { chunkId: 7000 + i, fileId: i % 40, vector: quantizedBytes(normalize(vector)) };
  });
  const index = loadVectorIndex(rows, rows.length, { model: "test" });
  for (const limit of [1, 10, 40, 100]) {
    for (const allowFile of [undefined, (fileId: number) => fileId % 5 !== 0]) {
      assert.deepEqual(
        nearestChunks(index, query, { limit, allowFile }),
        reference(rows, query, limit, allowFile),
        `limit ${limit}`,
      );
    }
  }
});

Deno.test("an index one thread loads serves another through shared memory", async () => {
  const root = fixtureRepository({
    "src/retry.ts": "export function retryWithBackoff(attempts: number) {\n  return attempts;\n}\n",
    "src/cookies.ts":
      "export function mergeCookies(jar: Map<string, string>) {\n  return jar;\n}\n",
  });
  const cache = tempCache();
  const query = hashVector([["retrywithbackoff", 1], ["retry", 1], ["backoff", 1]]);
  await withWorkspace(root, async (workspace) => {
    const repo = workspace.repositories[0];
    await workspace.refresh(repo);
    takeLoadedIndexes();
    const here = workspace.withReader(
      repo,
      (reader) => nearestChunks(vectorIndexFor(reader, HASH_MODEL_ID), query, { limit: 5 }),
    ).value!;
    const shared = takeLoadedIndexes();
    assert.equal(shared.length, 1);
    assert.ok(shared[0].memory.buffer instanceof SharedArrayBuffer);
    const ask = async (indexes: SharedVectorIndex[]) => {
      const worker = new Worker(new URL("./_vector_worker.ts", import.meta.url), {
        type: "module",
      });
      try {
        return await new Promise<{ hits: VectorHit[]; loadedHere: number }>((resolve, reject) => {
          worker.onmessage = (event) => resolve(event.data);
          worker.onerror = (event) => {
            event.preventDefault();
            reject(new Error(event.message));
          };
          worker.postMessage({ directory: root, cache, shared: indexes, query });
        });
      } finally {
        worker.terminate();
      }
    };
    // Handed the index, the other thread scans it without loading its own copy.
    assert.deepEqual(await ask(shared), { hits: here, loadedHere: 0 });
    // Without it, it loads one (the check above can tell the two apart).
    assert.deepEqual(await ask([]), { hits: here, loadedHere: 1 });
    // An older generation never replaces a newer one.
    adoptIndexes([{ ...shared[0], generation: shared[0].generation - 1 }]);
  }, cache);
});

/** The rows of an index as plain values: chunk, file, content hash, scale and values. */
function indexRows(index: ReturnType<typeof generationIndex>) {
  return Array.from({ length: index.rows }, (_, row) => ({
    chunk: index.chunkIds[row],
    file: index.fileIds[row],
    hash: index.hashes[row],
    scale: index.scales[row],
    values: Array.from(
      { length: index.dimensions },
      (_, d) => index.values[d * index.column + row],
    ),
  }));
}

Deno.test("the index of a generation after an edit, copied from the last one where contents stayed, is the one a full read builds; after a rebuild nothing is copied", async () => {
  const helper = (name: string) => `def ${name}(value):\n    return value + 1\n`;
  const root = fixtureRepository({
    "pkg/alpha.py": `${helper("first")}\n\n${helper("second")}`,
    "pkg/beta.py": `${helper("kept")}\n\n${helper("other")}`,
    // The same content as beta.py: equal hashes in two places.
    "pkg/gamma.py": `${helper("kept")}\n\n${helper("other")}`,
    "src/delta.ts": "export function delta(x: number): number {\n  return x * 2;\n}\n",
    "docs/notes.md": "# Notes\n\nRetry with backoff.\n",
  });
  await withWorkspace(root, async (workspace) => {
    const repo = workspace.repositories[0];
    await workspace.refresh(repo);
    const before = workspace.withReader(repo, (reader) => vectorIndexFor(reader, HASH_MODEL_ID))
      .value!;
    assert.ok(before.hashed && before.rows >= 5, `${before.hashed} ${before.rows}`);
    // A changed chunk, a removed file, a new one repeating kept contents, a changed text.
    Deno.writeTextFileSync(
      join(root, "pkg/alpha.py"),
      `${helper("first")}\n\n${helper("changed")}`,
    );
    Deno.removeSync(join(root, "src/delta.ts"));
    Deno.writeTextFileSync(
      join(root, "pkg/epsilon.py"),
      Deno.readTextFileSync(join(root, "pkg/beta.py")),
    );
    Deno.writeTextFileSync(join(root, "docs/notes.md"), "# Notes\n\nMerge cookies.\n");
    await workspace.refresh(repo);
    workspace.withReader(repo, (reader) => {
      const carried = vectorIndexFor(reader, HASH_MODEL_ID);
      assert.ok(carried.generation > before.generation);
      const full = generationIndex(reader, HASH_MODEL_ID, reader.generation(), null);
      assert.equal(carried.dimensions, full.dimensions);
      assert.deepEqual(indexRows(carried), indexRows(full));
      // Beta, gamma and the new epsilon hold contents of the last generation (copied from it).
      const earlier = new Set(Array.from(before.hashes.subarray(0, before.rows)));
      const copied = indexRows(carried).filter((row) => earlier.has(row.hash)).length;
      assert.ok(copied >= 3 && copied < carried.rows, `${copied} of ${carried.rows}`);
      // Which values are copied: with the last index's values all 9, every row of a chunk it
      // held (beta's, gamma's: same chunk ids) or of a content it held (epsilon's new rows repeat
      // beta's) gets 9; a content it did not hold (alpha's changed function, the notes) is read.
      const kept = new Set(Array.from(before.chunkIds.subarray(0, before.rows)));
      const nines = { ...before, values: before.values.map(() => 9) };
      const poisoned = generationIndex(reader, HASH_MODEL_ID, reader.generation(), nines);
      let byChunk = 0;
      let byContent = 0;
      let read = 0;
      for (const [row, values] of indexRows(poisoned).entries()) {
        const copy = kept.has(values.chunk) || earlier.has(values.hash);
        if (kept.has(values.chunk)) byChunk++;
        else if (copy) byContent++;
        else read++;
        assert.deepEqual(
          values.values,
          copy ? new Array(poisoned.dimensions).fill(9) : indexRows(full)[row].values,
        );
      }
      assert.ok(byChunk >= 2 && byContent >= 1 && read >= 2, `${byChunk} ${byContent} ${read}`);
      // Values wrong in this index's memory: a rebuild (vectors stored again) must not copy them.
      carried.values.fill(7, 0, carried.column);
    });
    await workspace.rebuild(repo);
    workspace.withReader(repo, (reader) => {
      const rebuilt = vectorIndexFor(reader, HASH_MODEL_ID);
      const full = generationIndex(reader, HASH_MODEL_ID, reader.generation(), null);
      assert.deepEqual(
        Array.from(rebuilt.values.subarray(0, rebuilt.column)),
        Array.from(full.values.subarray(0, full.column)),
      );
    });
  });
});

Deno.test("an embedding provider's index carried over generations: a content dropped and embedded again with other values is read again, not copied", async () => {
  // A local `/v1/embeddings` whose vectors for the same text change with `salt`.
  let salt = 1;
  const controller = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen() {} },
    async (request) => {
      const body = await request.json() as { input: string[]; model: string };
      const data = body.input.map((text, index) => {
        const embedding = new Array(16).fill(0).map((_, d) => d === salt ? 3 : 0.1);
        for (const ch of text) embedding[ch.charCodeAt(0) % 16] += 1;
        return { object: "embedding", index, embedding };
      });
      return Response.json({ object: "list", data, model: body.model });
    },
  );
  const { port } = server.addr as Deno.NetAddr;
  const dropped = "def dropped(value):\n    return value * 3\n";
  const root = fixtureRepository({
    "pkg/dropped.py": dropped,
    "pkg/kept.py": "def kept(value):\n    return value + 1\n",
  });
  writeFiles(root, {
    "sextant.yml": `embeddings:\n  endpoint: http://127.0.0.1:${port}/v1\n  model: salted\n`,
  });
  try {
    await withWorkspace(root, async (workspace) => {
      const repo = workspace.repositories[0];
      const model = providerModelId(embeddingConfig(workspace.config.raw)!);
      assert.equal((await workspace.refresh(repo)).embeddings?.error, null);
      // The first generation's index, kept by this thread.
      const first = workspace.withReader(repo, (reader) => vectorIndexFor(reader, model)).value!;
      assert.ok(first.rows >= 2, `${first.rows} rows`);
      // The file goes (its content's vector is dropped as an orphan; no index is made for that
      // generation here), then comes back and is embedded again, now to other values.
      Deno.removeSync(join(root, "pkg/dropped.py"));
      await workspace.refresh(repo);
      salt = 2;
      Deno.writeTextFileSync(join(root, "pkg/dropped.py"), dropped);
      assert.ok(((await workspace.refresh(repo)).embeddings?.computed ?? 0) > 0);
      workspace.withReader(repo, (reader) => {
        const carried = vectorIndexFor(reader, model);
        assert.equal(carried.generation, first.generation + 2);
        const full = generationIndex(reader, model, reader.generation(), null);
        // The content the first index holds has other values now: read, never copied from it.
        const back = new Set(indexRows(first).map((row) => row.hash));
        assert.ok(indexRows(full).some((row) => back.has(row.hash)));
        assert.notDeepEqual(indexRows(first), indexRows(full).filter((row) => back.has(row.hash)));
        assert.deepEqual(indexRows(carried), indexRows(full));
      });
    });
  } finally {
    controller.abort();
    await server.finished;
  }
});

Deno.test("every stored vector is read once, whatever the batch, and the index holds each one's stored values", async () => {
  const helper = (name: string) => `def ${name}(value):\n    return value + "${name}"\n`;
  const root = fixtureRepository(
    Object.fromEntries(
      Array.from({ length: 7 }, (_, i) => [
        `pkg/m${i}.py`,
        [0, 1, 2].map((j) => helper(`f${i}_${j}`)).join("\n\n"),
      ]),
    ),
  );
  await withWorkspace(root, async (workspace) => {
    const repo = workspace.repositories[0];
    await workspace.refresh(repo);
    const db = openTarget(workspace);
    const stored = new Map<number, Uint8Array>();
    try {
      for (
        const row of db.prepare("SELECT content_hash, vector FROM chunk_vectors WHERE model = ?")
          .all(HASH_MODEL_ID)
      ) stored.set(Number(row.content_hash), row.vector as Uint8Array);
    } finally {
      db.close();
    }
    assert.ok(stored.size >= 5, `${stored.size} vectors`);
    workspace.withReader(repo, (reader) => {
      for (const batch of [1, 2, 3, stored.size - 1, stored.size, 4096]) {
        const read: [number, number[]][] = [];
        reader.eachChunkVector(HASH_MODEL_ID, null, (hash, vector) => {
          read.push([hash, Array.from(vector)]);
        }, batch);
        assert.equal(read.length, stored.size, `batch ${batch}`);
        assert.deepEqual(
          new Map(read),
          new Map([...stored].map(([hash, vector]) => [hash, Array.from(vector)])),
          `batch ${batch}`,
        );
      }
      const index = vectorIndexFor(reader, HASH_MODEL_ID);
      assert.equal(index.rows, reader.chunkColumns().ids.length);
      for (const row of indexRows(index)) {
        const { scale, values } = readQuantized(stored.get(row.hash)!);
        assert.equal(row.scale, Math.fround(scale));
        assert.deepEqual(row.values, Array.from(values));
      }
    });
  });
});
