/** Held failures, pure: the plan keeps a file that ran out of time while its bytes stay. */
import assert from "node:assert/strict";
import { type HeldFailure, reconcilePlan, type StoredFile } from "../src/engine/plan.ts";
import { replyOutcome } from "../src/indexer/outcome.ts";
import { parseSettings } from "../src/indexer/settings.ts";

const KEY = "k1";
const onDisk = (path: string, size = 100, mtimeMs = 1000, fingerprintKey = KEY) => ({
  path,
  size,
  mtimeMs,
  fingerprintKey,
});
const failure = (options: Partial<HeldFailure> = {}): HeldFailure => ({
  size: 100,
  mtimeMs: 1000,
  fingerprintKey: KEY,
  contentHash: "failed-bytes",
  ...options,
});
const stored: StoredFile = { size: 50, mtimeMs: 10, contentHash: "old-rows", fingerprintKey: KEY };

Deno.test("plan: a held failure stays while size, mtime and fingerprint key stay", () => {
  const plan = reconcilePlan({
    inventory: [onDisk("new.ts"), onDisk("old.ts")],
    stored: new Map([["old.ts", stored]]),
    held: new Map([["new.ts", failure()], ["old.ts", failure()]]),
  });
  assert.deepEqual(plan, [
    { path: "new.ts", action: "unchanged", knownHash: null, held: true },
    { path: "old.ts", action: "unchanged", knownHash: "old-rows", held: true },
  ]);
});

Deno.test("plan: a new mtime on the same size is hashed against the failed bytes; other sizes, settings or parsers are parsed", () => {
  const held = new Map([
    ["touched.ts", failure()],
    ["grown.ts", failure()],
    ["resettled.ts", failure()],
    ["unread.ts", failure({ contentHash: null })],
  ]);
  const plan = reconcilePlan({
    inventory: [
      onDisk("touched.ts", 100, 2000),
      onDisk("grown.ts", 101, 1000),
      onDisk("resettled.ts", 100, 1000, "k2"),
      onDisk("unread.ts", 100, 2000),
    ],
    stored: new Map([["touched.ts", stored]]),
    held,
  });
  assert.deepEqual(plan, [
    { path: "grown.ts", action: "add", knownHash: null },
    { path: "resettled.ts", action: "add", knownHash: null },
    { path: "touched.ts", action: "update", knownHash: "failed-bytes", heldHash: true },
    { path: "unread.ts", action: "add", knownHash: null },
  ]);
});

Deno.test("plan: the held failure of a vanished file never indexed is deleted", () => {
  const plan = reconcilePlan({
    inventory: [],
    stored: new Map(),
    held: new Map([["gone.ts", failure()]]),
  });
  assert.deepEqual(plan, [{ path: "gone.ts", action: "delete", knownHash: null }]);
});

Deno.test("outcome: a timeout or crash records the bytes it failed on; other failures do not", () => {
  const entry = { path: "a.ts", action: "add" as const, knownHash: null };
  const timeout = replyOutcome(entry, {
    id: 1,
    status: "failed",
    stage: "timeout",
    message: "timed out after 300 ms",
    file: { size: 7, mtimeMs: 9, hash: "h" },
  }, { stored: false, present: true, mtimeMs: 9, size: 7 });
  assert.deepEqual(timeout.writes, [{
    op: "record_error",
    path: "a.ts",
    stage: "timeout",
    message: "timed out after 300 ms",
    held: { size: 7, mtimeMs: 9, contentHash: "h" },
  }]);
  // Out of time before the bytes were read: held by the listing's size and mtime.
  const early = replyOutcome(entry, {
    id: 1,
    status: "failed",
    stage: "crash",
    message: "worker crashed",
  }, { stored: false, present: true, mtimeMs: 9, size: 7 });
  assert.deepEqual(early.writes[0], {
    op: "record_error",
    path: "a.ts",
    stage: "crash",
    message: "worker crashed",
    held: { size: 7, mtimeMs: 9, contentHash: null },
  });
  // Read by the pool after the failure: held by those bytes only when the listing saw them.
  const after = (mtimeMs: number) =>
    replyOutcome(entry, {
      id: 1,
      status: "failed",
      stage: "timeout",
      message: "timed out",
      file: { size: 7, mtimeMs, hash: "now" },
      readAfter: true,
    }, { stored: false, present: true, mtimeMs: 9, size: 7 }).writes[0];
  const heldOf = (write: unknown) => (write as { held?: unknown }).held;
  assert.deepEqual(heldOf(after(9)), { size: 7, mtimeMs: 9, contentHash: "now" });
  assert.deepEqual(heldOf(after(12)), { size: 7, mtimeMs: 9, contentHash: null });
  const other = replyOutcome(entry, {
    id: 1,
    status: "failed",
    stage: "parse",
    message: "boom",
  }, { stored: false, present: true, mtimeMs: 9, size: 7 });
  assert.equal("held" in other.writes[0], false);
  // The failed bytes seen again under a new mtime: the failure's stat moves, nothing else.
  const same = replyOutcome(
    { path: "a.ts", action: "update", knownHash: "h", heldHash: true },
    { id: 1, status: "unchanged", hash: "h", size: 7, mtimeMs: 11 },
    { stored: true, present: true, mtimeMs: 11, size: 7 },
  );
  assert.deepEqual(same.writes, [{ op: "touch_error", path: "a.ts", size: 7, mtimeMs: 11 }]);
  assert.equal(same.effect.finalAction, "unchanged");
});

Deno.test("settings: max_file_size and parse_timeout_ms are capped at the workspace's limits", async () => {
  const capped = await parseSettings("max_file_size: 500000000\nparse_timeout_ms: 60000\n", {
    maxFileSize: 4 << 20,
  });
  assert.equal(capped.maxFileSize, 4 << 20);
  assert.equal(capped.parseTimeoutMs, 30_000);
  assert.deepEqual(capped.capped, [
    "max_file_size 500000000 in .code-index/settings.yml is above the workspace's limit 4194304: 4194304 applies",
    "parse_timeout_ms 60000 in .code-index/settings.yml is above the parse timeout 30000: 30000 applies",
  ]);
  // Within the limits: as asked, nothing reported; no request: the built-in default.
  const within = await parseSettings("max_file_size: 2000000\nparse_timeout_ms: 500\n", {
    maxFileSize: 4 << 20,
  });
  assert.deepEqual([within.maxFileSize, within.parseTimeoutMs, within.capped], [2000000, 500, []]);
  assert.equal((await parseSettings(null, { maxFileSize: 4 << 20 })).maxFileSize, 1 << 20);
  assert.equal((await parseSettings(null, { maxFileSize: 1000 })).maxFileSize, 1000);
  // The limit a file is held to is part of every fingerprint: another limit re-judges files.
  assert.notEqual(capped.hash, within.hash);
});
