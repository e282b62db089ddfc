/**
 * A target built from nothing is loaded without its `DEFERRED_INDEXES` and creates them as it
 * commits: once a refresh has committed, every index is there (and used), in a target built cold
 * or updated in place; a symbol id written twice in the build keeps the row written last, as
 * `INSERT OR REPLACE` did when the id was the table's key.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { beginReplacement, targetLocation } from "../src/store/target.ts";
import { DEFERRED_INDEXES } from "../src/store/schema.ts";
import type { FileRecord } from "../src/store/writer.ts";
import type { SymbolRow } from "../src/store/records.ts";
import { packRelations } from "../src/store/relation_pack.ts";
import { packText } from "../src/store/packing.ts";
import {
  fixtureRepository,
  openTarget,
  tempCache,
  tempDirectory,
  withWorkspace,
  writeFiles,
} from "./_helpers.ts";

const DEFERRED_NAMES = DEFERRED_INDEXES.map((sql) => /EXISTS (\w+) ON/.exec(sql)![1]);

function indexNames(db: DatabaseSync): Set<string> {
  return new Set(
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all().map((row) =>
      row.name as string
    ),
  );
}

function plan(db: DatabaseSync, sql: string, ...params: string[]): string {
  return db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params).map((row) => row.detail).join(
    "; ",
  );
}

Deno.test("a cold build ends with every deferred index, used by the reads that need it", async () => {
  const root = fixtureRepository({
    "a.py": "def alpha():\n    return beta()\n\n\ndef beta():\n    return 1\n",
    "b.py": "class Gamma:\n    def alpha(self):\n        return 2\n",
  });
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    const check = (label: string) => {
      const db = openTarget(workspace);
      try {
        const names = indexNames(db);
        for (const name of DEFERRED_NAMES) assert.ok(names.has(name), `${label}: ${name}`);
        assert.match(
          plan(db, "SELECT * FROM code_symbols WHERE id = ?", "x"),
          /USING INDEX code_symbols_id/,
        );
        assert.match(
          plan(db, "SELECT * FROM code_symbols WHERE name = ? COLLATE NOCASE", "x"),
          /USING INDEX code_symbols_name/,
        );
        assert.match(
          plan(db, "SELECT * FROM source_chunks WHERE content_hash = ?", "1"),
          /USING INDEX source_chunks_hash/,
        );
      } finally {
        db.close();
      }
    };
    check("cold");
    const alpha = await run("symbols", { query: "alpha" });
    assert.deepEqual(alpha.results.map((r) => (r as { path: string }).path).sort(), [
      "a.py",
      "b.py",
    ]);
    writeFiles(root, { "c.py": "def delta():\n    return alpha()\n" });
    await run("refresh");
    check("in place");
    assert.equal((await run("symbols", { query: "delta" })).results.length, 1);
  });
});

function symbol(id: string, name: string, line: number): SymbolRow {
  return {
    id,
    name,
    qualified_name: name,
    kind: "function",
    start_line: line,
    start_col: 0,
    end_line: line,
    end_col: 10,
    signature: null,
    doc: null,
    parent_id: null,
    exported: true,
  };
}

function record(path: string, symbols: SymbolRow[]): FileRecord {
  return {
    path,
    fingerprintKey: "k",
    contentHash: `hash-${path}`,
    size: 10,
    mtimeMs: 0,
    language: "python",
    parser: "test",
    capability: "graph",
    lineCount: 1,
    rows: {
      symbols,
      chunks: [],
      relations: packRelations([]),
      imports: [],
      text: packText("x = 1\n"),
      regions: null,
      termsComplete: true,
      diagnostics: [],
      failed: false,
    },
  };
}

Deno.test("a symbol id written twice in a cold build keeps the row written last", () => {
  const root = tempDirectory({ prefix: "sextant-deferred-" });
  const location = targetLocation(root, tempCache());
  const replacement = beginReplacement(location);
  try {
    const writer = replacement.writer;
    writer.begin();
    writer.replaceFile(record("a.py", [symbol("same", "first", 1), symbol("a-only", "kept", 2)]));
    writer.replaceFile(record("b.py", [symbol("same", "second", 7)]));
    writer.commit({ head: null, settingsHash: "s", extra: {} });
    replacement.swapIn();
  } catch (error) {
    replacement.abandon();
    throw error;
  }
  const db = new DatabaseSync(location.databasePath, { readOnly: true });
  try {
    const rows = db.prepare(
      `SELECT s.id, s.name, s.start_line, f.path FROM code_symbols s
         JOIN source_files f ON f.id = s.file_id ORDER BY s.id`,
    ).all().map((row) => `${row.id} ${row.name} ${row.path}:${row.start_line}`);
    assert.deepEqual(rows, ["a-only kept a.py:2", "same second b.py:7"]);
    for (const name of DEFERRED_NAMES) assert.ok(indexNames(db).has(name), name);
  } finally {
    db.close();
  }
});
