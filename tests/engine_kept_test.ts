/** KeptBySize: arrays kept between uses by size, at most `sizes` sizes. */
import assert from "node:assert/strict";
import { KeptBySize } from "../src/engine/kept.ts";

Deno.test("KeptBySize: a value taken is no longer kept until given back; the size kept longest goes first", () => {
  const kept = new KeptBySize<Int32Array>(2);
  assert.equal(kept.take(8), undefined);
  const eight = new Int32Array(8);
  kept.give(8, eight);
  assert.equal(kept.take(8), eight);
  assert.equal(kept.take(8), undefined, "taken: not handed out twice");
  kept.give(8, eight);
  kept.give(16, new Int32Array(16));
  kept.give(32, new Int32Array(32));
  assert.equal(kept.take(8), undefined, "the oldest size went when a third came");
  assert.equal(kept.take(16)?.length, 16);
  assert.equal(kept.take(32)?.length, 32);
});

Deno.test("KeptBySize: kept() makes a value once per size and keeps it while it is used", () => {
  const kept = new KeptBySize<Float64Array>(4);
  let made = 0;
  const make = () => (made++, new Float64Array(4));
  const first = kept.kept(4, make);
  assert.equal(kept.kept(4, make), first);
  assert.equal(made, 1);
  // Given again (a newer use of that size), it is the newest: other sizes go before it.
  for (const size of [1, 2, 3]) kept.kept(size, () => new Float64Array(size));
  kept.give(4, first);
  kept.kept(5, () => new Float64Array(5));
  assert.equal(kept.take(4), first);
  assert.equal(kept.take(1), undefined);
});
