import assert from "node:assert/strict";
import { join } from "node:path";
import {
  fixtureRepository,
  tempCache,
  tempDirectory,
  withWorkspace,
  writeFiles,
} from "./_helpers.ts";
import type { RefreshReport } from "../src/indexer/refresh.ts";
import type { Envelope, StatusData } from "../src/protocol/types.ts";

function report(envelope: Envelope): RefreshReport {
  return (envelope.data as { reports: RefreshReport[] }).reports[0];
}

function repoStatus(envelope: Envelope) {
  return (envelope.data as StatusData).repositories[0];
}

/** Search hits for the big file's word in `path`. */
async function hitsIn(
  run: (action: string, params?: Record<string, unknown>) => Promise<Envelope>,
  path: string,
): Promise<number> {
  const found = await run("search", { query: "quetzalcoatlBig" });
  return found.results.filter((hit) => (hit as { path: string }).path === path).length;
}

/** A text file of `bytes` bytes holding a word to search for. */
function textOf(bytes: number, word: string): string {
  const line = `${word} is a word of this large file, repeated on every line of it\n`;
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

Deno.test("a repository's own max_file_size is capped at the workspace's limit, and status says so", async () => {
  const root = fixtureRepository({
    ".code-index/settings.yml": "max_file_size: 200000000\n",
    "big.md": textOf(1_500_000, "quetzalcoatlBig"),
    "small.md": "# small\n\nquetzalcoatlSmall\n",
  });
  // No sextant.yml: the built-in limit (1 MiB) applies, whatever the repository asks.
  await withWorkspace(root, async (_workspace, run) => {
    const refresh = report(await run("refresh"));
    assert.equal(refresh.skipped.oversize, 1, JSON.stringify(refresh.skipped));
    assert.equal(refresh.files, 3 - 1 - 1, "small.md and nothing else (settings are excluded)");
    const status = await run("status");
    assert.equal(repoStatus(status).skipped.oversize, 1);
    assert.ok(
      status.limitations.some((line) =>
        line.includes(
          "max_file_size 200000000 in .code-index/settings.yml is above the workspace's limit 1048576: 1048576 applies",
        )
      ),
      JSON.stringify(status.limitations),
    );
    assert.equal(await hitsIn(run, "big.md"), 0);
  });

  // A workspace that allows 2 MiB: the repository may use up to that, and is capped there.
  const workspaceDir = Deno.realPathSync(tempDirectory({ prefix: "sextant-ws-" }));
  Deno.writeTextFileSync(
    join(workspaceDir, "sextant.yml"),
    `workspace:\n  max_file_size: 2097152\nrepositories:\n  - name: repo\n    path: ${root}\n`,
  );
  await withWorkspace(workspaceDir, async (_workspace, run) => {
    const refresh = report(await run("refresh"));
    assert.equal(refresh.skipped.oversize ?? 0, 0, JSON.stringify(refresh.skipped));
    assert.ok(await hitsIn(run, "big.md") > 0, "the 1.5 MB file is indexed under the 2 MiB limit");
    const status = await run("status");
    assert.ok(
      status.limitations.some((line) =>
        line.includes(
          "max_file_size 200000000 in .code-index/settings.yml is above the workspace's limit 2097152: 2097152 applies",
        )
      ),
      JSON.stringify(status.limitations),
    );
    // Without a request of its own, a repository keeps the built-in default.
    writeFiles(root, { ".code-index/settings.yml": "exclude: []\n" });
    const again = report(await run("refresh"));
    assert.equal(again.skipped.oversize, 1);
  }, tempCache());
});

/** A TypeScript file near 1 MB whose parse takes far longer than the timeout the test sets. */
function slowFile(seed: string): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 900_000; i++) {
    const line =
      `export function ${seed}${i}(a: number, b: string): number { return a + b.length * ${i} + g${i}(a); }`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n") + "\n";
}

/** Plan counts of a refresh. */
const plan = (add: number, unchanged: number, remove = 0) => ({
  add,
  update: 0,
  delete: remove,
  rename: 0,
  unchanged,
});

Deno.test("a file that timed out is not parsed again while its bytes are the same; it is when they change", async () => {
  const root = fixtureRepository({
    // One file may take 300 ms (the repository may shorten the timeout, never lengthen it).
    ".code-index/settings.yml": "parse_timeout_ms: 300\n",
    "slow.ts": slowFile("slow"),
  });
  await withWorkspace(root, async (_workspace, run) => {
    const first = report(await run("refresh"));
    assert.deepEqual(first.plan, plan(1, 0));
    assert.equal(first.parsed, 0);
    const failed = repoStatus(await run("status"));
    assert.equal(failed.errors.count, 1);
    assert.deepEqual(failed.errors.by_stage, { timeout: 1 });
    assert.match(failed.errors.sample[0].message, /timed out after 300 ms/);

    // Unchanged bytes: held, not parsed (and not given another 300 ms).
    const second = report(await run("refresh"));
    assert.deepEqual(second.plan, plan(0, 1));
    assert.equal(second.changed, false);
    assert.equal(repoStatus(await run("status")).errors.count, 1);

    // A new mtime on the same bytes: hashed, found equal, still held.
    const later = new Date(Date.now() + 5_000);
    Deno.utimeSync(join(root, "slow.ts"), later, later);
    const third = report(await run("refresh"));
    assert.deepEqual(third.plan, plan(0, 1));
    assert.equal(third.verifiedUnchanged, 1);
    const fourth = report(await run("refresh"));
    assert.deepEqual(fourth.plan, plan(0, 1));
    assert.equal(fourth.verifiedUnchanged, 0, "the new mtime was recorded: no hash this time");

    // Other bytes: tried again (and time out again).
    writeFiles(root, { "slow.ts": slowFile("other") });
    const fifth = report(await run("refresh"));
    assert.deepEqual(fifth.plan, plan(1, 0));
    assert.equal(repoStatus(await run("status")).errors.by_stage.timeout, 1);

    // The file gone: its error row goes with it (a held failure of a file never indexed).
    Deno.removeSync(join(root, "slow.ts"));
    const gone = report(await run("refresh"));
    assert.deepEqual(gone.plan, plan(0, 0, 1));
    assert.equal(repoStatus(await run("status")).errors.count, 0);

    // A timeout the settings lengthen is tried again (its fingerprint changed), and parses.
    writeFiles(root, {
      "slow.ts": slowFile("other"),
      ".code-index/settings.yml": "parse_timeout_ms: 25000\n",
    });
    const sixth = report(await run("refresh"));
    assert.equal(sixth.parsed, 1);
    assert.equal(repoStatus(await run("status")).errors.by_stage.timeout, undefined);

    // parse_timeout_ms above the built-in timeout is capped, and status says so.
    writeFiles(root, { ".code-index/settings.yml": "parse_timeout_ms: 99999999\n" });
    await run("refresh");
    const status = await run("status");
    assert.ok(
      status.limitations.some((line) =>
        line.includes("parse_timeout_ms 99999999") && line.includes("30000 applies")
      ),
      JSON.stringify(status.limitations),
    );
  });
});

Deno.test("a rebuild tries a held failure again", async () => {
  const root = fixtureRepository({
    ".code-index/settings.yml": "parse_timeout_ms: 300\n",
    "slow.ts": slowFile("slow"),
  });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    assert.equal(repoStatus(await run("status")).errors.by_stage.timeout, 1);
    const rebuilt = report(await run("rebuild"));
    assert.deepEqual(rebuilt.plan, plan(1, 0));
    assert.equal(repoStatus(await run("status")).errors.by_stage.timeout, 1);
  });
});
