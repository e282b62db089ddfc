/**
 * Vector scan speed at scale (SPEC §8 "fast at 100k+ chunks"): builds a target
 * table of N hashing vectors, loads it into the in-memory layout and times
 * full scans. `deno run -A scripts/_eval_vector_speed.ts [N]`
 */
import { DatabaseSync } from "node:sqlite";
import { HASH_MODEL_ID, hashVector, vectorToBytes } from "../src/engine/vector.ts";
import { loadVectorIndex, nearestChunks } from "../src/search/vector_index.ts";

const count = Number(Deno.args[0] ?? 100_000);
const words =
  "parse config file retry backoff http client cookie session token cache lru map set get"
    .split(" ");
const db = new DatabaseSync(":memory:");
db.exec(`CREATE TABLE source_chunks (id INTEGER PRIMARY KEY, file_id INTEGER, content_hash TEXT);
  CREATE TABLE chunk_vectors (content_hash TEXT, model TEXT, vector BLOB, PRIMARY KEY (content_hash, model)) WITHOUT ROWID;`);
let started = performance.now();
const insertChunk = db.prepare(
  "INSERT INTO source_chunks(id, file_id, content_hash) VALUES (?, ?, ?)",
);
const insertVector = db.prepare("INSERT INTO chunk_vectors VALUES (?, ?, ?)");
db.exec("BEGIN");
for (let i = 0; i < count; i++) {
  const terms = Array.from(
    { length: 40 },
    (_, j) => [`${words[(i * 7 + j) % words.length]}${(i + j) % 97}`, 1] as const,
  );
  insertChunk.run(i + 1, Math.floor(i / 20), `h${i}`);
  insertVector.run(`h${i}`, HASH_MODEL_ID, vectorToBytes(hashVector(terms)));
}
db.exec("COMMIT");
const vectorizeMs = performance.now() - started;
started = performance.now();
const index = loadVectorIndex(db, HASH_MODEL_ID);
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
  vectorize_and_store_ms: Math.round(vectorizeMs),
  load_ms: Math.round(loadMs),
  scan_ms_p50: Math.round(times[10] * 10) / 10,
  scan_ms_max: Math.round(times[19] * 10) / 10,
}));
