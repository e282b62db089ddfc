import assert from "node:assert/strict";
import { seededRandom } from "./_random.ts";
import {
  pairRenamesByHash,
  planCounts,
  type PlanEntry,
  type PlanInput,
  reconcilePlan,
  type StoredFile,
} from "../src/engine/plan.ts";

const KEY = "settings-1:tree-sitter:python";

/** A file on disk as the inventory sees it. */
function onDisk(path: string, size = 100, mtimeMs = 1000, fingerprintKey = KEY) {
  return { path, size, mtimeMs, fingerprintKey };
}

/** A file as the target stores it; its hash is derived from the path unless given. */
function indexed(
  path: string,
  options: Partial<StoredFile> = {},
): [string, StoredFile] {
  return [path, {
    size: 100,
    mtimeMs: 1000,
    contentHash: `hash-of-${path}`,
    fingerprintKey: KEY,
    ...options,
  }];
}

function entryFor(plan: PlanEntry[], path: string): PlanEntry | undefined {
  return plan.find((entry) => entry.path === path);
}

Deno.test("plan: a new path is an add with no known hash", () => {
  const plan = reconcilePlan({ inventory: [onDisk("new.py")], stored: new Map() });
  assert.deepEqual(plan, [{ path: "new.py", action: "add", knownHash: null }]);
});

Deno.test("plan: equal size, mtime and fingerprint key is unchanged", () => {
  const plan = reconcilePlan({
    inventory: [onDisk("same.py")],
    stored: new Map([indexed("same.py")]),
  });
  assert.deepEqual(plan, [{ path: "same.py", action: "unchanged", knownHash: "hash-of-same.py" }]);
});

Deno.test("plan: a changed size or mtime is an update that carries the stored hash", () => {
  const plan = reconcilePlan({
    inventory: [onDisk("grown.py", 120), onDisk("touched.py", 100, 2000)],
    stored: new Map([indexed("grown.py"), indexed("touched.py")]),
  });
  assert.deepEqual(plan, [
    { path: "grown.py", action: "update", knownHash: "hash-of-grown.py" },
    { path: "touched.py", action: "update", knownHash: "hash-of-touched.py" },
  ]);
});

Deno.test("plan: a fingerprint-key change forces an update with knownHash null", () => {
  const plan = reconcilePlan({
    inventory: [onDisk("a.py", 100, 1000, "settings-2:tree-sitter:python")],
    stored: new Map([indexed("a.py")]),
  });
  // Same bytes or not, the file must be re-parsed: a known hash would let it skip.
  assert.deepEqual(plan, [{ path: "a.py", action: "update", knownHash: null }]);
});

Deno.test("plan: a stored path missing from the inventory is a delete", () => {
  const plan = reconcilePlan({ inventory: [], stored: new Map([indexed("gone.py")]) });
  assert.deepEqual(plan, [{ path: "gone.py", action: "delete", knownHash: null }]);
});

Deno.test("plan: a git rename of a stored path that is gone is a rename", () => {
  const plan = reconcilePlan({
    inventory: [onDisk("new/name.py")],
    stored: new Map([indexed("old/name.py")]),
    renames: new Map([["new/name.py", "old/name.py"]]),
  });
  assert.deepEqual(plan, [
    { path: "new/name.py", action: "rename", from: "old/name.py", knownHash: null },
  ]);
});

Deno.test("plan: a git rename whose old path still exists is an add (a copy)", () => {
  const plan = reconcilePlan({
    inventory: [onDisk("copy.py"), onDisk("original.py")],
    stored: new Map([indexed("original.py")]),
    renames: new Map([["copy.py", "original.py"]]),
  });
  assert.deepEqual(plan, [
    { path: "copy.py", action: "add", knownHash: null },
    { path: "original.py", action: "unchanged", knownHash: "hash-of-original.py" },
  ]);
});

Deno.test("plan: a git rename from a path that was never stored is an add", () => {
  const plan = reconcilePlan({
    inventory: [onDisk("new.py")],
    stored: new Map(),
    renames: new Map([["new.py", "excluded/old.py"]]),
  });
  assert.deepEqual(plan, [{ path: "new.py", action: "add", knownHash: null }]);
});

Deno.test("plan: a git rename onto a path that is already stored is an update of that path", () => {
  const plan = reconcilePlan({
    inventory: [onDisk("target.py", 200)],
    stored: new Map([indexed("target.py"), indexed("source.py")]),
    renames: new Map([["target.py", "source.py"]]),
  });
  assert.deepEqual(plan, [
    { path: "source.py", action: "delete", knownHash: null },
    { path: "target.py", action: "update", knownHash: "hash-of-target.py" },
  ]);
});

Deno.test("plan: entries are sorted by path", () => {
  const plan = reconcilePlan({
    inventory: [onDisk("b.py"), onDisk("a/z.py"), onDisk("C.py")],
    stored: new Map([indexed("a.py")]),
  });
  assert.deepEqual(plan.map((entry) => entry.path), ["C.py", "a.py", "a/z.py", "b.py"]);
});

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

Deno.test("plan: the same input in any order gives an identical plan", () => {
  const inventory = [
    onDisk("keep.py"),
    onDisk("edit.py", 999),
    onDisk("rekey.py", 100, 1000, "settings-2"),
    onDisk("moved/to.py"),
    onDisk("fresh.py"),
    ...Array.from({ length: 30 }, (_, i) => onDisk(`bulk/f${i}.py`, i % 3 === 0 ? 7 : 100)),
  ];
  const stored = [
    indexed("keep.py"),
    indexed("edit.py"),
    indexed("rekey.py"),
    indexed("moved/from.py"),
    indexed("deleted.py"),
    ...Array.from({ length: 30 }, (_, i) => indexed(`bulk/f${i}.py`)),
  ];
  const renames: [string, string][] = [["moved/to.py", "moved/from.py"], [
    "fresh.py",
    "nowhere.py",
  ]];
  const input: PlanInput = { inventory, stored: new Map(stored), renames: new Map(renames) };
  const expected = reconcilePlan(input);
  assert.deepEqual(planCounts(expected), {
    add: 1,
    update: 12,
    delete: 1,
    rename: 1,
    unchanged: 21,
  });
  const random = seededRandom(42);
  for (let round = 0; round < 20; round++) {
    const plan = reconcilePlan({
      inventory: shuffled(inventory, random),
      stored: new Map(shuffled(stored, random)),
      renames: new Map(shuffled(renames, random)),
    });
    assert.deepEqual(plan, expected, `round ${round}`);
  }
});

Deno.test("pairRenamesByHash: a delete and an add of identical bytes become one rename", () => {
  const stored = new Map([indexed("old.py", { contentHash: "same-bytes" })]);
  const plan = reconcilePlan({ inventory: [onDisk("new.py")], stored });
  const paired = pairRenamesByHash(plan, new Map([["new.py", "same-bytes"]]), stored);
  assert.deepEqual(paired, [
    { path: "new.py", action: "rename", from: "old.py", knownHash: null },
  ]);
});

Deno.test("pairRenamesByHash: an add of different bytes stays an add and the delete stays", () => {
  const stored = new Map([indexed("old.py", { contentHash: "old-bytes" })]);
  const plan = reconcilePlan({ inventory: [onDisk("new.py")], stored });
  const paired = pairRenamesByHash(plan, new Map([["new.py", "new-bytes"]]), stored);
  assert.deepEqual(paired, plan);
});

Deno.test("pairRenamesByHash: identical copies pair one-to-one, in path order", () => {
  const stored = new Map([
    indexed("old/a.py", { contentHash: "empty" }),
    indexed("old/b.py", { contentHash: "empty" }),
  ]);
  const plan = reconcilePlan({
    inventory: [onDisk("new/x.py"), onDisk("new/y.py"), onDisk("new/z.py")],
    stored,
  });
  const hashes = new Map([["new/x.py", "empty"], ["new/y.py", "empty"], ["new/z.py", "empty"]]);
  assert.deepEqual(pairRenamesByHash(plan, hashes, stored), [
    { path: "new/x.py", action: "rename", from: "old/a.py", knownHash: null },
    { path: "new/y.py", action: "rename", from: "old/b.py", knownHash: null },
    { path: "new/z.py", action: "add", knownHash: null },
  ]);
});

Deno.test("pairRenamesByHash: updates and unchanged entries are left alone", () => {
  const stored = new Map([indexed("edit.py"), indexed("keep.py")]);
  const plan = reconcilePlan({ inventory: [onDisk("edit.py", 5), onDisk("keep.py")], stored });
  const hashes = new Map([["edit.py", "hash-of-keep.py"]]);
  assert.deepEqual(pairRenamesByHash(plan, hashes, stored), plan);
});

Deno.test("planCounts: counts every action, zero for the absent ones", () => {
  assert.deepEqual(planCounts([]), { add: 0, update: 0, delete: 0, rename: 0, unchanged: 0 });
  const plan = reconcilePlan({
    inventory: [onDisk("a.py"), onDisk("b.py"), onDisk("c.py", 1), onDisk("to.py")],
    stored: new Map([indexed("c.py"), indexed("from.py"), indexed("gone.py")]),
    renames: new Map([["to.py", "from.py"]]),
  });
  assert.deepEqual(planCounts(plan), { add: 2, update: 1, delete: 1, rename: 1, unchanged: 0 });
  assert.equal(entryFor(plan, "to.py")?.from, "from.py");
});
