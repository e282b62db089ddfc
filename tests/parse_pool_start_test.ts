/**
 * A parse pool whose Workers cannot start (`_unstartable_parse_worker.ts`) fails its jobs with
 * the reason after `START_ATTEMPTS` tries, instead of replacing Workers forever while the
 * refresh waits; a pool of real Workers beside it parses as usual.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ParsePool, START_ATTEMPTS } from "../src/indexer/pool.ts";
import { loadLanguageTable } from "../src/indexer/languages.ts";
import type { ParseJob } from "../src/indexer/parse_types.ts";
import { tempDirectory, within } from "./_helpers.ts";

function job(root: string, id: number): ParseJob {
  return {
    id,
    root,
    path: "a.py",
    language: "python",
    knownHash: null,
    maxFileSize: 1 << 20,
    packageRoot: null,
  };
}

Deno.test("parse pool: Workers that cannot start fail the jobs with the reason, not forever", async () => {
  const root = tempDirectory({ prefix: "sextant-pool-start-" });
  Deno.writeTextFileSync(join(root, "a.py"), "def f():\n    return 1\n");
  const table = loadLanguageTable();
  const broken = new ParsePool({
    root,
    table,
    size: 2,
    module: new URL("./_unstartable_parse_worker.ts", import.meta.url),
  });
  const working = new ParsePool({ root, table, size: 1 });
  try {
    // Jobs waiting when the last attempt fails, and one asked afterwards.
    const waiting = await within(
      Promise.all([1, 2, 3].map((id) => broken.parse(job(root, id)))),
      60_000,
      "jobs of a pool that cannot start",
    );
    for (const [i, reply] of waiting.entries()) {
      assert.equal(reply.id, i + 1);
      assert.equal(reply.status, "failed");
      if (reply.status !== "failed") continue;
      assert.equal(reply.stage, "parse");
      assert.match(reply.message, new RegExp(`cannot start \\(${START_ATTEMPTS} in a row`));
      assert.match(reply.message, /this parse Worker cannot load/);
    }
    const later = await within(broken.parse(job(root, 4)), 1_000, "a later job");
    assert.equal(later.status, "failed");
    const parsed = await within(working.parse(job(root, 5)), 60_000, "a working pool");
    assert.equal(parsed.status, "parsed");
  } finally {
    broken.close();
    working.close();
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("parse pool: a warmed pool's Worker has its grammars before any job, and parses with them", async () => {
  const root = tempDirectory({ prefix: "sextant-pool-warm-" });
  Deno.writeTextFileSync(join(root, "a.py"), "def f():\n    return 1\n");
  const pool = new ParsePool({ root, table: loadLanguageTable(), size: 1 });
  try {
    assert.ok(pool.fresh);
    assert.deepEqual(pool.languages(), []);
    pool.warm(["python", "no-such-language"]);
    // The grammar went ahead of the job (which then carries none): the parse needs it there.
    assert.deepEqual(pool.languages(), ["python"]);
    const reply = await within(pool.parse(job(root, 1)), 60_000, "a warmed pool");
    assert.equal(reply.status, "parsed");
    assert.ok(reply.status === "parsed" && reply.rows.symbols.some((s) => s.name === "f"));
    assert.ok(!pool.fresh);
  } finally {
    pool.close();
  }
});
