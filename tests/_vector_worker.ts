/** A Worker for the vector index test: adopts the indexes it is sent, then scans one target. */
import { HASH_MODEL_ID } from "../src/engine/vector.ts";
import {
  adoptIndexes,
  nearestChunks,
  takeLoadedIndexes,
  vectorIndexFor,
} from "../src/search/vector_index.ts";
import { Workspace } from "../src/workspace/workspace.ts";

self.onmessage = async (event) => {
  const { directory, cache, shared, query } = event.data;
  adoptIndexes(shared);
  const workspace = await Workspace.open({ directory, cacheDirectory: cache });
  try {
    const hits = workspace.withReader(
      workspace.repositories[0],
      (reader) => nearestChunks(vectorIndexFor(reader, HASH_MODEL_ID), query, { limit: 5 }),
    ).value;
    (self as unknown as Worker).postMessage({ hits, loadedHere: takeLoadedIndexes().length });
  } finally {
    workspace.close();
  }
};
