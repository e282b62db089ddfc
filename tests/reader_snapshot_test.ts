/**
 * A reader's snapshot (`TargetReader.hold`, which the resolver takes for each synchronous run of
 * its reads): until the run ends, another connection's commit is not seen — the generation, the
 * meta values and the rows all stay those of one commit — and once it ends, the next read sees
 * the commit. Without a snapshot, a read sees every commit as it lands.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { runAction } from "../src/actions/dispatch.ts";
import type { TargetReader } from "../src/store/reader.ts";
import type { AccessContext } from "../src/workspace/scope.ts";
import type { Workspace } from "../src/workspace/workspace.ts";
import { withoutTimes } from "../scripts/_bench_stats.ts";
import { fixtureRepository, withWorkspace } from "./_helpers.ts";

/** Another connection's commit: the generation moves on and one file's row is gone. */
function commitElsewhere(workspace: Workspace, generation: number, drop?: string): void {
  const db = new DatabaseSync(workspace.repositories[0].location.databasePath);
  try {
    // As the target's writer sets it; never waits: a reader's snapshot holds no writer back.
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA foreign_keys = ON");
    db.prepare("UPDATE meta SET value = ? WHERE key = 'generation'").run(String(generation));
    if (drop) db.prepare("DELETE FROM source_files WHERE path = ?").run(drop);
  } finally {
    db.close();
  }
}

/** The journal mode the target's writer sets when it opens (a cold build leaves rollback mode). */
function walMode(workspace: Workspace): void {
  const db = new DatabaseSync(workspace.repositories[0].location.databasePath);
  try {
    assert.equal(db.prepare("PRAGMA journal_mode = WAL").get()?.journal_mode, "wal");
  } finally {
    db.close();
  }
}

function readerOf(workspace: Workspace): TargetReader {
  const opened = workspace.reader(workspace.repositories[0]);
  assert.ok(opened.reader, `no reader: ${opened.problem}`);
  return opened.reader;
}

const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("a held snapshot sees one commit until its synchronous run ends", async () => {
  const root = fixtureRepository({
    "a.py": "def alpha():\n    return 1\n",
    "b.py": "def beta():\n    return alpha()\n",
  });
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    walMode(workspace);
    const reader = readerOf(workspace);
    const before = reader.generation();
    assert.ok(before > 0);

    // In one synchronous run: held before the commit, so the commit is not seen.
    reader.hold();
    assert.equal(reader.generation(), before);
    assert.deepEqual([...reader.paths()].sort(), ["a.py", "b.py"]);
    commitElsewhere(workspace, before + 1, "b.py");
    assert.equal(reader.generation(), before, "the generation of the held snapshot");
    assert.equal(reader.fileId("b.py") !== undefined, true, "rows of the held snapshot");
    assert.equal(
      reader.symbolsNamed("beta").length,
      1,
      "a read not made before the commit is still of the held snapshot",
    );

    // The run ended: the snapshot is let go, and the next read sees the commit.
    await nextTurn();
    assert.equal(reader.generation(), before + 1);
    assert.deepEqual([...reader.paths()], ["a.py"]);
    assert.equal(reader.symbolsNamed("beta").length, 0);

    // Not held: a commit is seen by the very next read.
    commitElsewhere(workspace, before + 2);
    assert.equal(reader.generation(), before + 2);
  });
});

Deno.test("holding twice in a run takes one snapshot; a microtask after the run sees the commit", async () => {
  const root = fixtureRepository({ "a.py": "def alpha():\n    return 1\n" });
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    walMode(workspace);
    const reader = readerOf(workspace);
    const before = reader.generation();
    reader.hold();
    commitElsewhere(workspace, before + 1);
    reader.hold();
    assert.equal(reader.generation(), before);
    // An awaited continuation runs after the snapshot is let go (it was queued first).
    await Promise.resolve();
    assert.equal(reader.generation(), before + 1);
    reader.hold();
    assert.equal(reader.generation(), before + 1);
    commitElsewhere(workspace, before + 2);
    assert.equal(reader.generation(), before + 1);
    await nextTurn();
    assert.equal(reader.generation(), before + 2);
  });
});

Deno.test("in rollback mode nothing is held: a writer is never kept waiting by a reader", async () => {
  const root = fixtureRepository({ "a.py": "def alpha():\n    return 1\n" });
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    const reader = readerOf(workspace);
    const before = reader.generation();
    const db = new DatabaseSync(workspace.repositories[0].location.databasePath);
    try {
      // A cold build links its target in rollback mode.
      assert.equal(db.prepare("PRAGMA journal_mode").get()?.journal_mode, "delete");
      reader.hold();
      // A lock held by the reader would fail this at once (no busy timeout).
      db.prepare("UPDATE meta SET value = ? WHERE key = 'generation'").run(String(before + 1));
      assert.equal(reader.generation(), before + 1);
    } finally {
      db.close();
    }
  });
});

Deno.test("actions answer alike whether their reads hold a snapshot (WAL) or not (rollback)", async () => {
  const root = fixtureRepository({
    "pkg/__init__.py": '"""A package of shapes."""\n',
    "pkg/shapes.py": "class Shape:\n    def area(self):\n        return 0\n\n\n" +
      "class Square(Shape):\n    def area(self):\n        return self.side * self.side\n",
    "pkg/use.py": "from pkg.shapes import Square\n\n\ndef total(items):\n" +
      "    return sum(Square().area() for _ in items)\n",
    "secret/notes.py": "def area_of_secret():\n    return Square\n",
  });
  // A caller who sees pkg/ only: its search statistics come from the chunks it may see.
  const restricted: AccessContext = {
    allowPath: (_repo, path) => path.startsWith("pkg/"),
    pathRestricted: () => true,
    pathRule: () => ({ key: "pkg-only", allow: (path: string) => path.startsWith("pkg/") }),
  };
  const asked: [string, Record<string, unknown>, AccessContext?][] = [
    ["search", { query: "square area" }],
    ["search", { query: "square area" }, restricted],
    ["symbols", { query: "area" }],
    ["definition", { symbol: "Square" }],
    ["references", { symbol: "Square.area" }],
    ["impact", { symbol: "Square" }],
    ["outline", {}],
    ["map", {}],
    ["context", { query: "square area" }],
    ["grep", { pattern: "$X.area()", language: "python" }],
  ];
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    const answers = async () => {
      const out: string[] = [];
      for (const [action, params, context] of asked) {
        const answer = await runAction(workspace, action, params, context ?? {});
        // Rows read are fewer the second time: what uses resolve to is kept for the generation.
        const data = answer.data && typeof answer.data === "object"
          ? { ...answer.data as Record<string, unknown>, rows_read: null }
          : answer.data;
        out.push(
          JSON.stringify(withoutTimes({ ...answer, data, trace_id: "", next_cursor: null })),
        );
      }
      return out;
    };
    const db = new DatabaseSync(workspace.repositories[0].location.databasePath, {
      readOnly: true,
    });
    try {
      assert.equal(db.prepare("PRAGMA journal_mode").get()?.journal_mode, "delete");
      const alone = await answers();
      walMode(workspace);
      // (A connection tells the mode its last read found.)
      db.prepare("SELECT count(*) FROM meta").get();
      assert.equal(db.prepare("PRAGMA journal_mode").get()?.journal_mode, "wal");
      const held = await answers();
      assert.deepEqual(held, alone);
      // Not empty answers agreeing: each action found something.
      for (const [i, answer] of alone.entries()) {
        const results = (JSON.parse(answer) as { results: unknown[] }).results;
        assert.ok(results.length > 0, `${asked[i][0]} answered nothing`);
      }
    } finally {
      db.close();
    }
  });
});
