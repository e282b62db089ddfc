import assert from "node:assert/strict";
import { join } from "node:path";
import { loadLanguageTable } from "../src/indexer/languages.ts";
import { ParsePool } from "../src/indexer/pool.ts";
import type { ParseJob, ParseReply } from "../src/indexer/parse_types.ts";
import { raceParses } from "../scripts/toctou.ts";
import { fixtureRepository, tempDirectory } from "./_helpers.ts";

Deno.test("no interleaving reads outside the root: a directory exchanged with an outside symlink in a tight loop during parses and refreshes", async () => {
  const report = await raceParses({ parses: 2_000, refreshes: 4, threadReads: 2_000 });
  assert.equal(report.parses, 2_000);
  assert.ok(report.swaps > 1_000, `the swap loop ran (${report.swaps} exchanges)`);
  // The race was met (reads that opened through the symlink were refused), and lost every time.
  assert.ok((report.refused.symlink_escape ?? 0) > 0, JSON.stringify(report));
  assert.equal(report.outside, 0, `parses returned outside bytes: ${JSON.stringify(report)}`);
  assert.equal(report.outsideSearchable, 0, `outside files searchable: ${JSON.stringify(report)}`);
  assert.equal(report.other, 0, JSON.stringify(report));
  // This thread's reads (live scan, settings, manifests) hold too.
  assert.equal(report.confinedReads, 2_000);
  assert.equal(report.confinedOutside, 0, JSON.stringify(report));
});

function job(root: string, id: number, path: string): ParseJob {
  return {
    id,
    root,
    path,
    language: "typescript",
    knownHash: null,
    maxFileSize: 1 << 20,
    packageRoot: null,
  };
}

function reason(reply: ParseReply): string {
  return reply.status === "skipped" ? reply.reason : reply.status;
}

Deno.test("the Worker judges what it opened: a link made after the listing, a FIFO, a swapped-in directory", async () => {
  const root = fixtureRepository({
    "src/a.ts": "export const a = 1;\n",
    "src/b.ts": "export const b = 2;\n",
  }, { git: false });
  const outside = tempDirectory();
  Deno.writeTextFileSync(join(outside, "secret.ts"), "export const secret = 3;\n");
  const pool = new ParsePool({ root, table: loadLanguageTable(), size: 1 });
  try {
    assert.equal(reason(await pool.parse(job(root, 1, "src/a.ts"))), "parsed");
    // A second name given to a file after the inventory listed it.
    Deno.linkSync(join(root, "src/b.ts"), join(root, "src/b2.ts"));
    assert.equal(reason(await pool.parse(job(root, 2, "src/b.ts"))), "hard_link");
    // A FIFO answers at once (never a wait for a writer until the pool's timeout).
    new Deno.Command("mkfifo", { args: [join(root, "src/pipe.ts")] }).outputSync();
    const started = performance.now();
    assert.equal(reason(await pool.parse(job(root, 3, "src/pipe.ts"))), "not_a_file");
    assert.ok(performance.now() - started < 5_000);
    // The last component a symlink: refused at the open, without reading.
    Deno.symlinkSync(join(root, "src/a.ts"), join(root, "src/alias.ts"));
    assert.equal(reason(await pool.parse(job(root, 4, "src/alias.ts"))), "symlink");
    Deno.symlinkSync(join(outside, "secret.ts"), join(root, "src/link.ts"));
    assert.equal(reason(await pool.parse(job(root, 4, "src/link.ts"))), "symlink_escape");
    // A directory on the way a symlink to an outside directory: the file opened is not at its
    // path inside the root, so the reply is refused.
    Deno.symlinkSync(outside, join(root, "lib"));
    const escaped = await pool.parse(job(root, 5, "lib/secret.ts"));
    assert.equal(reason(escaped), "symlink_escape");
    assert.match(
      escaped.status === "skipped" ? escaped.message : "",
      /outside the repository root/,
    );
    // The pool still parses after every refusal.
    assert.equal(reason(await pool.parse(job(root, 6, "src/a.ts"))), "parsed");
  } finally {
    pool.close();
  }
});
