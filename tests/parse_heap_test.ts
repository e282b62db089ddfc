/**
 * A parse Worker bounds its heap by collecting its garbage once the heap in use passes a mark
 * (`src/indexer/heap.ts`): the collector must exist in this runtime and collect at once.
 */
import assert from "node:assert/strict";
import { garbageCollector, HEAP_MARK, heapBound } from "../src/indexer/heap.ts";

Deno.test("garbageCollector: collects an isolate's unreachable objects at once", () => {
  const collect = garbageCollector();
  assert.ok(collect !== null, "the runtime offers V8's collector");
  let junk: unknown[] | null = Array.from({ length: 400_000 }, (_, i) => ({ i, s: `item ${i}` }));
  const held = Deno.memoryUsage().heapUsed;
  assert.ok(junk.length > 0);
  junk = null;
  collect();
  // The ~30 MB of objects are gone now, not at V8's next collection.
  assert.ok(Deno.memoryUsage().heapUsed < held - 10 * 2 ** 20);
});

Deno.test("heapBound: collects only above its mark", () => {
  assert.equal(heapBound(Number.MAX_SAFE_INTEGER)(), false);
  assert.equal(heapBound(0)(), true);
  assert.ok(HEAP_MARK >= 32 * 2 ** 20, "a mark below a Worker's live set would collect every file");
});
