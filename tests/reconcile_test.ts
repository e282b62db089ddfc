import assert from "node:assert/strict";
import { join } from "node:path";
import {
  count,
  fixtureRepository,
  git,
  openTarget,
  tempDirectory,
  withWorkspace,
  writeFiles,
} from "./_helpers.ts";
import type { RefreshReport } from "../src/indexer/refresh.ts";

const PY = (name: string, body = "return 1") => `def ${name}(x):\n    ${body}\n`;

function report(envelope: { data?: unknown }): RefreshReport {
  return (envelope.data as { reports: RefreshReport[] }).reports[0];
}

Deno.test("plan: add, update, delete, rename and unchanged, each seen by refresh", async () => {
  const root = fixtureRepository({
    "keep.py": PY("keep"),
    "edit.py": PY("edit"),
    "gone.py": PY("gone"),
    "move.py": PY("moved_function", "return 'a distinctive body'"),
  });
  await withWorkspace(root, async (_ws, run) => {
    const first = report(await run("refresh"));
    assert.deepEqual(first.plan, { add: 4, update: 0, delete: 0, rename: 0, unchanged: 0 });
    assert.equal(first.generation, 1);

    writeFiles(root, { "edit.py": PY("edit", "return 2"), "new.py": PY("fresh") });
    Deno.removeSync(join(root, "gone.py"));
    git(root, "mv", "move.py", "moved.py");
    git(root, "add", "-A");
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "change");
    const second = report(await run("refresh"));
    assert.deepEqual(second.plan, { add: 1, update: 1, delete: 1, rename: 1, unchanged: 1 });
    assert.equal(second.generation, 2);

    const symbols = await run("symbols", { query: "moved_function" });
    assert.equal(symbols.results[0].path, "moved.py");
    assert.equal((await run("symbols", { query: "gone" })).results.length, 0);
  });
});

Deno.test("plan: an uncommitted move of identical bytes is a rename", async () => {
  const root = fixtureRepository({ "a.py": PY("alpha") });
  await withWorkspace(root, async (_ws, run) => {
    await run("refresh");
    Deno.renameSync(join(root, "a.py"), join(root, "b.py"));
    const second = report(await run("refresh"));
    assert.deepEqual(second.plan, { add: 0, update: 0, delete: 0, rename: 1, unchanged: 0 });
  });
});

Deno.test("a no-op refresh changes no row and keeps the generation", async () => {
  const root = fixtureRepository({ "a.py": PY("alpha"), "b.ts": "export const b = 1;\n" });
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    const db = openTarget(workspace);
    const snapshot = () =>
      JSON.stringify([
        db.prepare("SELECT * FROM source_files ORDER BY id").all(),
        db.prepare("SELECT * FROM source_chunks ORDER BY id").all(),
        db.prepare("SELECT * FROM code_symbols ORDER BY id").all(),
        db.prepare("SELECT * FROM file_text ORDER BY file_id").all(),
        db.prepare("SELECT * FROM file_relations ORDER BY file_id").all(),
        db.prepare("SELECT * FROM relation_targets ORDER BY name, file_id").all(),
        db.prepare("SELECT * FROM chunk_vectors ORDER BY id").all(),
        db.prepare("SELECT * FROM meta ORDER BY key").all(),
      ]);
    const before = snapshot();
    const again = report(await run("refresh"));
    assert.equal(again.changed, false);
    assert.equal(again.generation, 1);
    assert.equal(again.plan.unchanged, 2);
    assert.equal(snapshot(), before);
    // Touching a file without changing its bytes is hashed, found unchanged, and still no new generation.
    const now = new Date(Date.now() + 5000);
    Deno.utimeSync(join(root, "a.py"), now, now);
    const touched = report(await run("refresh"));
    assert.equal(touched.generation, 1);
    assert.equal(touched.verifiedUnchanged, 1);
    db.close();
  });
});

Deno.test("deleting a file drops its text, chunks, symbols, relations, postings and FTS rows", async () => {
  const root = fixtureRepository({
    "a.py": "import os\n\nclass Zebra:\n    def stripes(self):\n        return os.getcwd()\n",
    "b.py": PY("other"),
  });
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    const db = openTarget(workspace);
    const fileId = count(db, "SELECT id FROM source_files WHERE path = ?", "a.py");
    assert.ok(count(db, "SELECT count(*) FROM source_chunks WHERE file_id = ?", fileId) > 0);
    assert.ok(count(db, "SELECT count(*) FROM code_symbols WHERE file_id = ?", fileId) > 0);
    const owned = (table: string) =>
      count(db, `SELECT count(*) FROM ${table} WHERE file_id = ?`, fileId);
    for (const table of ["file_text", "file_relations", "relation_targets"]) {
      assert.ok(owned(table) > 0, table);
    }
    assert.equal(
      count(
        db,
        "SELECT count(*) FROM relation_targets WHERE name = 'getcwd' AND file_id = ?",
        fileId,
      ),
      1,
    );
    const ftsZebra = () =>
      count(db, "SELECT count(*) FROM source_chunks_fts WHERE source_chunks_fts MATCH 'zebra'");
    assert.equal(ftsZebra(), 1);
    Deno.removeSync(join(root, "a.py"));
    await run("refresh");
    assert.equal(count(db, "SELECT count(*) FROM source_chunks WHERE file_id = ?", fileId), 0);
    assert.equal(count(db, "SELECT count(*) FROM code_symbols WHERE file_id = ?", fileId), 0);
    for (const table of ["file_text", "file_relations", "relation_targets"]) {
      assert.equal(owned(table), 0, table);
    }
    assert.equal(ftsZebra(), 0);
    assert.equal((await run("search", { query: "Zebra stripes" })).results.length, 0);
    db.close();
  });
});

Deno.test("a file that stops parsing keeps its last good rows; fixing it clears the error", async () => {
  const good = "def keep_me(a):\n    return a\n\nclass Kept:\n    pass\n";
  const root = fixtureRepository({ "m.py": good });
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    writeFiles(root, { "m.py": ")))(((:::\n".repeat(50) + "=== ((( ]]] }}}\n".repeat(50) });
    const broken = report(await run("refresh"));
    assert.equal(broken.errors, 1);
    const db = openTarget(workspace);
    assert.equal(
      count(db, "SELECT count(*) FROM index_errors WHERE path = 'm.py' AND stage = 'parse'"),
      1,
    );
    assert.equal((await run("symbols", { query: "keep_me" })).results.length, 1);
    // Bytes that are no longer UTF-8 also keep the last good rows.
    writeFiles(root, { "m.py": new Uint8Array([0x64, 0x65, 0x66, 0xff, 0xfe, 0x0a]) });
    await run("refresh");
    assert.equal(
      count(db, "SELECT count(*) FROM index_errors WHERE path = 'm.py' AND stage = 'not_utf8'"),
      1,
    );
    assert.equal((await run("symbols", { query: "Kept" })).results.length, 1);
    writeFiles(root, { "m.py": good.replace("keep_me", "fixed_again") });
    const fixed = report(await run("refresh"));
    assert.equal(fixed.errors, 0);
    assert.equal(count(db, "index_errors"), 0);
    assert.equal((await run("symbols", { query: "fixed_again" })).results.length, 1);
    db.close();
  });
});

Deno.test("secrets, binaries, oversize, excluded and escaping symlinks are skipped and counted", async () => {
  const root = fixtureRepository({
    "src/app.py": PY("app"),
    ".env": "SECRET=1\n",
    "keys/server.pem": "-----BEGIN-----\n",
    "node_modules/dep/index.js": "module.exports = 1;\n",
    "image.bin": new Uint8Array([1, 2, 0, 3, 4]),
    "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    "big.txt": "x".repeat(3000) + "\n",
    "skipme/a.py": PY("skipped_by_settings"),
    ".code-index/settings.yml":
      "exclude: ['skipme/**']\nmax_file_size: 2048\nchunkers: [custom.py]\n",
  }, { git: false });
  Deno.symlinkSync("/etc/passwd", join(root, "passwd-link"));
  await withWorkspace(root, async (_ws, run) => {
    await run("refresh");
    const status = await run("status");
    const repo = (status.data as {
      repositories: { skipped: Record<string, number>; files: number; limitations: string[] }[];
    })
      .repositories[0];
    assert.equal(repo.files, 1, "only src/app.py is indexed");
    assert.deepEqual(repo.skipped, {
      secret: 2,
      binary: 1,
      not_utf8: 1,
      oversize: 1,
      settings_exclude: 1,
      symlink_escape: 1,
    });
    assert.ok(repo.limitations.some((l) => l.includes("never executed")));
    assert.equal(
      (await run("search", { query: "root" })).results.length,
      0,
      "passwd never indexed",
    );
    assert.equal((await run("search", { query: "SECRET" })).results.length, 0);
  });
});

Deno.test("a target built from nothing writes its pages into its own file: no WAL or journal beside it while it is built", async () => {
  const files = Object.fromEntries(
    Array.from({ length: 40 }, (_, i) => [`pkg/m${i}.py`, PY(`function_${i}`)]),
  );
  const root = fixtureRepository(files);
  await withWorkspace(root, async (workspace, run) => {
    const repo = workspace.repositories[0];
    let beside: string[] | null = null;
    const first = await workspace.refresh(repo, (progress) => {
      // Every file's rows are written by now; the commit follows.
      if (progress.phase !== "commit") return;
      const names = [...Deno.readDirSync(repo.location.directory)].map((entry) => entry.name);
      const building = names.filter((name) => name.endsWith(".building"));
      assert.equal(building.length, 1, `one build under way: ${names}`);
      beside = names.filter((name) => name !== building[0] && name.startsWith(building[0]));
    });
    assert.equal(first.plan.add, 40);
    assert.deepEqual(beside, [], "nothing beside the file being built");
    assert.equal((await run("symbols", { query: "function_39" })).results[0]?.path, "pkg/m39.py");
    // The next refresh writes in place, through the WAL that readers share.
    writeFiles(root, { "pkg/m0.py": PY("renamed_function") });
    assert.equal((await workspace.refresh(repo)).plan.update, 1);
    assert.equal(
      (await run("symbols", { query: "renamed_function" })).results[0]?.path,
      "pkg/m0.py",
    );
  });
});

Deno.test("a schema-version mismatch rebuilds the target instead of misreading it", async () => {
  const root = fixtureRepository({ "a.py": PY("alpha") });
  const { cache, databasePath } = await indexOnce(root);
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(databasePath);
  db.exec("UPDATE meta SET value = '999' WHERE key = 'schema_version'");
  db.exec("INSERT INTO meta(key, value) VALUES ('marker', 'old')");
  db.close();
  await withWorkspace(root, async (workspace, run) => {
    const status = await run("status");
    const repo = (status.data as { repositories: { state: string }[] }).repositories[0];
    assert.equal(repo.state, "schema_mismatch");
    const rebuilt = report(await run("refresh"));
    // A replacement continues the path's generations: a generation is never served twice.
    assert.equal(rebuilt.generation, 2);
    assert.equal(rebuilt.plan.add, 1);
    const fresh = openTarget(workspace);
    assert.equal(count(fresh, "SELECT count(*) FROM meta WHERE key = 'marker'"), 0);
    fresh.close();
  }, cache);
});

Deno.test("a corrupt target is rebuilt; search meanwhile answers from a live scan", async () => {
  const root = fixtureRepository({ "a.py": PY("unicorn_parser") });
  const { cache, databasePath } = await indexOnce(root);
  const bytes = Deno.readFileSync(databasePath);
  Deno.writeFileSync(databasePath, bytes.subarray(0, 1000));
  try {
    Deno.removeSync(databasePath + "-wal");
  } catch { /* none */ }
  await withWorkspace(root, async (workspace, run) => {
    const answer = await run("search", { query: "unicorn_parser", refresh: false });
    assert.equal(answer.provenance.fallback_used, true);
    assert.equal(answer.provenance.backend, "live-scan");
    assert.equal(answer.results[0].path, "a.py");
    // The background rebuild started by the fallback; wait for it through refresh (single-flight).
    await workspace.refresh(workspace.repositories[0]);
    const after = await run("search", { query: "unicorn_parser", refresh: false });
    assert.equal(after.provenance.fallback_used, false);
    assert.equal(after.results[0].path, "a.py");
  }, cache);
});

Deno.test("concurrent refreshes of one repository are single-flight", async () => {
  const root = fixtureRepository({ "a.py": PY("alpha"), "b.py": PY("beta") });
  await withWorkspace(root, async (workspace) => {
    const repo = workspace.repositories[0];
    const [a, b] = [workspace.refresh(repo), workspace.refresh(repo)];
    assert.equal(a, b);
    const [ra, rb] = await Promise.all([a, b]);
    assert.equal(ra.generation, 1);
    assert.equal(rb.generation, 1);
  });
});

Deno.test("a repository path that does not exist is a clear error", async () => {
  await assert.rejects(
    () => withWorkspace("/nonexistent/sextant/repo", () => Promise.resolve()),
    /does not exist/,
  );
});

/** Indexes a fixture into a fresh cache and returns where its target is. */
async function indexOnce(root: string): Promise<{ cache: string; databasePath: string }> {
  const cache = tempDirectory();
  const databasePath = await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    return workspace.repositories[0].location.databasePath;
  }, cache);
  return { cache, databasePath };
}

Deno.test("chunk byte ranges address the committed bytes, also after non-ASCII lines", async () => {
  const body = Array.from(
    { length: 40 },
    (_, i) => `def größe_${i}(x):\n    """Ünïcödé — ${"ж".repeat(30)}"""\n    return x * ${i}\n\n`,
  ).join("");
  const root = fixtureRepository({ "u.py": body });
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    const db = openTarget(workspace);
    const chunks = db.prepare(
      "SELECT start_line, end_line, start_byte, end_byte FROM source_chunks ORDER BY start_line",
    ).all() as { start_line: number; end_line: number; start_byte: number; end_byte: number }[];
    assert.ok(chunks.length >= 2, "the file is split into several chunks");
    const bytes = new TextEncoder().encode(body);
    const lines = body.split("\n");
    for (const chunk of chunks) {
      const text = new TextDecoder().decode(bytes.subarray(chunk.start_byte, chunk.end_byte));
      assert.equal(text, lines.slice(chunk.start_line - 1, chunk.end_line).join("\n"));
    }
    db.close();
  });
});

Deno.test("a file skipped for its bytes is not read again while its stat stays, after a restart too", async () => {
  const binary = "def late(x):\n\0   return 1\n";
  const text = "def late(x):\n    return 1\n";
  assert.equal(binary.length, text.length);
  const root = fixtureRepository({ "a.py": PY("alpha"), "blob.py": binary });
  const blob = join(root, "blob.py");
  const cache = tempDirectory({ prefix: "sextant-skips-" });
  const first = await withWorkspace(root, async (_ws, run) => report(await run("refresh")), cache);
  assert.equal(first.skipped.binary, 1);
  const { mtime } = Deno.statSync(blob);

  // Other bytes of the same size under the same mtime: like an unchanged stored file, the
  // skipped one is taken as unchanged by its stat and not read — by a workspace opened anew
  // (a restarted daemon) as well, since the target records it.
  Deno.writeTextFileSync(blob, text);
  Deno.utimeSync(blob, mtime!, mtime!);
  await withWorkspace(root, async (_ws, run) => {
    const second = report(await run("refresh"));
    assert.equal(second.skipped.binary, 1, "still reported skipped");
    assert.equal(second.changed, false);
    assert.equal((await run("symbols", { query: "late" })).results.length, 0);

    // A new mtime: read again, and now indexed.
    const later = new Date(mtime!.getTime() + 5000);
    Deno.utimeSync(blob, later, later);
    const third = report(await run("refresh"));
    assert.equal(third.skipped.binary, undefined);
    assert.equal(third.parsed, 1);
    assert.equal((await run("symbols", { query: "late" })).results.length, 1);
  }, cache);
});
