/** Lines kept in a cache must not keep their whole file alive (`ownString`). */
import assert from "node:assert/strict";
import { ownString } from "../src/engine/lines.ts";
import { garbageCollector } from "../src/indexer/heap.ts";

/** Heap bytes still held after 20 files of 1 MB are dropped and one line of each kept. */
function heldAfter(keep: (line: string) => string): number {
  const gc = garbageCollector();
  assert.ok(gc, "the runtime offers a collector");
  gc();
  const before = Deno.memoryUsage().heapUsed;
  const kept: string[] = [];
  for (let i = 0; i < 20; i++) {
    const file = `${String(i).padEnd(49, "a")}\n`.repeat(20_000);
    kept.push(keep(file.split("\n")[3]));
  }
  gc();
  assert.equal(kept.length, 20);
  return Deno.memoryUsage().heapUsed - before;
}

Deno.test("ownString: a kept line holds only itself, not the text it was cut from", () => {
  const views = heldAfter((line) => line);
  const copies = heldAfter(ownString);
  // A line split from a file is a view of it: 20 lines keep 20 MB alive; copies a few bytes.
  assert.ok(views > 10_000_000, `a view keeps its file (${views} bytes held)`);
  assert.ok(copies < 5_000_000, `a copy keeps only itself (${copies} bytes held)`);
  const line = "def alpha(x):  # a line long enough to be a view";
  assert.equal(ownString(line), line);
});
