/** The pure step of a refresh: a parse reply and what is known of its file → writes and counts. */
import assert from "node:assert/strict";
import type { PlanEntry } from "../src/engine/plan.ts";
import { replyOutcome, tallyOutcomes } from "../src/indexer/outcome.ts";
import type { ParseReply } from "../src/indexer/parse_types.ts";

const rows = (diagnostics: string[] = [], failed = false) => ({
  symbols: [],
  chunks: [],
  relations: { data: new Uint8Array(), targets: [], count: 0 },
  imports: [],
  text: new Uint8Array(),
  regions: null,
  termsComplete: true,
  diagnostics,
  failed,
});

const parsed = (diagnostics: string[] = [], failed = false): ParseReply => ({
  id: 1,
  status: "parsed",
  hash: "h1",
  size: 10,
  mtimeMs: 5,
  lineCount: 2,
  capability: "graph",
  rows: rows(diagnostics, failed),
});

const entry = (action: PlanEntry["action"], from?: string): PlanEntry => ({
  path: "a.py",
  action,
  knownHash: null,
  ...(from ? { from } : {}),
});

const ops = (outcome: ReturnType<typeof replyOutcome>) =>
  outcome.writes.map((write) => `${write.op}:${write.path}`);

Deno.test("a parsed file replaces its rows; a rename drops the old path; diagnostics are errors", () => {
  const added = replyOutcome(entry("add"), parsed(), { stored: false, present: true, mtimeMs: 9 });
  assert.deepEqual(ops(added), ["replace:a.py", "clear_error:a.py"]);
  assert.equal((added.writes[0] as { mtimeMs: number }).mtimeMs, 9);
  assert.deepEqual(added.effect, {
    parsed: 1,
    verifiedUnchanged: 0,
    bytes: 10,
    lines: 2,
    addedHash: "h1",
    skipped: null,
  });
  assert.equal(added.effectAfter, 1);
  const renamed = replyOutcome(entry("rename", "old.py"), parsed(["bad token"]), {
    stored: false,
    present: true,
  });
  assert.deepEqual(ops(renamed), ["replace:a.py", "delete:old.py", "record_error:a.py"]);
  assert.equal(renamed.effect.addedHash, null);
  assert.equal((renamed.writes[2] as { stage: string }).stage, "syntax");
  // Too broken to trust, with good rows stored: only the error is recorded.
  const broken = replyOutcome(entry("update"), parsed(["tree is ERROR"], true), {
    stored: true,
    present: true,
  });
  assert.deepEqual(ops(broken), ["record_error:a.py"]);
  assert.equal(broken.effect.parsed, 0);
});

Deno.test("unchanged, skipped, vanished and failed replies", () => {
  const same = replyOutcome(
    entry("update"),
    { id: 1, status: "unchanged", hash: "h", size: 3, mtimeMs: 4 },
    { stored: true, present: true },
  );
  assert.deepEqual(ops(same), ["touch:a.py"]);
  assert.equal(same.effect.finalAction, "unchanged");
  const skipped: ParseReply = { id: 1, status: "skipped", reason: "binary", message: "NUL" };
  assert.equal(
    replyOutcome(entry("add"), skipped, { stored: false, present: true }).effect.skipped,
    "binary",
  );
  assert.equal(
    replyOutcome(entry("add"), skipped, { stored: false, present: true }).effect.finalAction,
    null,
  );
  assert.deepEqual(ops(replyOutcome(entry("update"), skipped, { stored: true, present: true })), [
    "record_error:a.py",
  ]);
  const gone: ParseReply = { id: 1, status: "skipped", reason: "unreadable", message: "ENOENT" };
  const vanished = replyOutcome(entry("update"), gone, { stored: true, present: false });
  assert.deepEqual(ops(vanished), ["delete:a.py"]);
  assert.equal(vanished.effect.finalAction, "delete");
  assert.equal(vanished.effectAfter, 1);
  const failed: ParseReply = { id: 1, status: "failed", stage: "worker", message: "timeout" };
  assert.deepEqual(ops(replyOutcome(entry("add"), failed, { stored: false, present: true })), [
    "record_error:a.py",
  ]);
});

Deno.test("tallyOutcomes folds effects over the plan and the inventory's skips", () => {
  const plan: PlanEntry[] = [
    { path: "a.py", action: "add", knownHash: null },
    { path: "b.py", action: "update", knownHash: "x" },
    { path: "c.bin", action: "add", knownHash: null },
  ];
  const tally = tallyOutcomes({ plan, skipped: [{ reason: "secret" }, { reason: "binary" }] }, [
    {
      path: "a.py",
      effect: replyOutcome(plan[0], parsed(), { stored: false, present: true }).effect,
    },
    {
      path: "b.py",
      effect:
        replyOutcome(plan[1], { id: 2, status: "unchanged", hash: "x", size: 1, mtimeMs: 1 }, {
          stored: true,
          present: true,
        }).effect,
    },
    {
      path: "c.bin",
      effect: replyOutcome(plan[2], { id: 3, status: "skipped", reason: "binary", message: "" }, {
        stored: false,
        present: true,
      }).effect,
    },
  ]);
  assert.equal(tally.parsed, 1);
  assert.equal(tally.verifiedUnchanged, 1);
  assert.deepEqual(tally.skipped, { secret: 1, binary: 2 });
  assert.deepEqual([...tally.finalActions], [["a.py", "add"], ["b.py", "unchanged"]]);
  assert.deepEqual([...tally.addedHashes], [["a.py", "h1"]]);
});
