/**
 * The resolver's generation cache keeps what was read last: when the weight is over, the entry
 * used longest ago goes first (a read counts as a use). Its own file: the cache's weight is the
 * isolate's.
 */
import assert from "node:assert/strict";
import { GenerationCache, KeptPool } from "../src/resolver/generation_cache.ts";

Deno.test("an entry read since it was kept outlives older unread ones; unread ones go oldest first", () => {
  // Entries of weight 10 (9 + 1): four fit in 40.
  const cache = new GenerationCache(new KeptPool(40));
  const made: string[] = [];
  const get = (key: string) =>
    cache.get(key, () => {
      made.push(key);
      return `value of ${key}`;
    }, () => 9);
  for (const key of ["a", "b", "c", "d"]) get(key);
  assert.deepEqual(made, ["a", "b", "c", "d"]);
  // Read `a` (the oldest): kept values are served, nothing is made again.
  assert.equal(get("a"), "value of a");
  assert.deepEqual(made, ["a", "b", "c", "d"]);
  // A fifth entry: `a` was read since it was kept, so `b` (the oldest unread) goes.
  get("e");
  get("a");
  get("c");
  assert.deepEqual(made, ["a", "b", "c", "d", "e"]);
  get("b");
  assert.deepEqual(made, ["a", "b", "c", "d", "e", "b"], "b was dropped");
  // `b` came back over the weight: `d` (unread, oldest after the moved ones) went.
  get("d");
  assert.deepEqual(made, ["a", "b", "c", "d", "e", "b", "d"], "d was dropped");
});

Deno.test("an entry over a quarter of the weight is made and not kept", () => {
  const cache = new GenerationCache(new KeptPool(40));
  let made = 0;
  const get = () => cache.get("big", () => ++made, () => 20);
  assert.equal(get(), 1);
  assert.equal(get(), 2);
});
