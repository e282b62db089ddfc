/**
 * A parse Worker bounds its heap by collecting its garbage once the heap in use passes a mark
 * (`src/indexer/heap.ts`): the collector must exist in this runtime and collect at once.
 */
import assert from "node:assert/strict";
import { garbageCollector, HEAP_MARK, heapBound, heapCollector } from "../src/indexer/heap.ts";

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

Deno.test("heapCollector: a live set past the mark does not make every check collect", () => {
  const headroom = 8 * 2 ** 20;
  const collector = heapCollector(1, headroom);
  assert.ok(collector !== null);
  // Kept alive across the checks: a live set far above the 1-byte mark.
  const live = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `kept ${i}` }));
  assert.equal(collector.over(), true);
  collector.collect();
  const after = Deno.memoryUsage().heapUsed;
  // Right after a collection the heap is its live set: below the next limit.
  assert.equal(collector.over(), false, "collects again only once the headroom is used");
  // Held allocations reach the limit once the heap holds its live set again (plus what one step
  // allocates).
  const held: unknown[] = [];
  while (!collector.over() && held.length < 2_000) {
    held.push(Array.from({ length: 10_000 }, (_, i) => ({ i, s: `more ${i}` })));
  }
  assert.equal(collector.over(), true, "the limit is reached");
  const grown = Deno.memoryUsage().heapUsed - after;
  assert.ok(after > headroom, "a live set larger than the headroom");
  // As much again as the live set (the headroom is the least): collecting stays in proportion.
  assert.ok(grown >= 0.9 * after, `collects after the live set doubled: ${grown} of ${after}`);
  assert.ok(grown <= Math.max(headroom, after) + 4 * 2 ** 20, `and not much later: ${grown} bytes`);
  assert.ok(live.length > 0);
});
