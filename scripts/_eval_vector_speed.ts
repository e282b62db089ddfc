/**
 * Vector scan speed at scale (the scan must stay fast at 100k+ chunks): makes N
 * stored hashing vectors, packs them into the in-memory layout and times full
 * scans. `deno run -A scripts/_eval_vector_speed.ts [N]`
 */
import { HASH_MODEL_ID, hashVector, quantizedBytes } from "../src/engine/vector.ts";
import type { VectorRow } from "../src/store/reader.ts";
import { loadVectorIndex, nearestChunks } from "../src/search/vector_index.ts";

const count = Number(Deno.args[0] ?? 100_000);
const words =
  "parse config file retry backoff http client cookie session token cache lru map set get"
    .split(" ");
let started = performance.now();
const rows: VectorRow[] = [];
for (let i = 0; i < count; i++) {
  const terms = Array.from(
    { length: 40 },
    (_, j) => [`${words[(i * 7 + j) % words.length]}${(i + j) % 97}`, 1] as const,
  );
  rows.push({
    chunkId: i + 1,
    fileId: Math.floor(i / 20),
    vector: quantizedBytes(hashVector(terms)),
  });
}
const vectorizeMs = performance.now() - started;
started = performance.now();
const index = loadVectorIndex(rows, count, { model: HASH_MODEL_ID });
const loadMs = performance.now() - started;
const query = hashVector([["retry", 1], ["backoff3", 1], ["cookie", 1]]);
const times: number[] = [];
for (let run = 0; run < 20; run++) {
  started = performance.now();
  nearestChunks(index, query, { limit: 300, allowFile: (id) => id % 10 !== 0 });
  times.push(performance.now() - started);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({
  chunks: count,
  dimensions: index.dimensions,
  memory_mb: Math.round((index.values.byteLength + index.scales.byteLength * 3) / 1e5) / 10,
  vectorize_ms: Math.round(vectorizeMs),
  load_ms: Math.round(loadMs),
  scan_ms_p50: Math.round(times[10] * 10) / 10,
  scan_ms_max: Math.round(times[19] * 10) / 10,
}));
